"""DML: INSERT, UPDATE and DELETE, with constraint checks and index maintenance."""
