"""DML: INSERT, UPDATE and DELETE, with constraint checks and index maintenance.

`analyse.analyse_dml` routes a statement to its analyser; `writer.TableWriter`
writes rows with their checks, index entries and foreign-key actions.
"""
