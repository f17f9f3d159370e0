"""The PostgreSQL v3 wire protocol front end.

`backend` is the contract with the SQL layer; `messages` frames bytes; `auth`
runs the password exchanges; `protocol` (with `extended`) is the per-connection
state machine, free of I/O; `server` runs it on asyncio with one worker thread
per connection.
"""
