"""Match logs (``docs/log-format.md``): one import path for the records, writer and reader.

The log is three modules: :mod:`replay.records` (schema, hash chain, the lines an engine input
or output is logged as), :mod:`replay.writer` (:class:`MatchLogWriter`) and
:mod:`replay.reader` (:func:`read_log`, :func:`parse_log`). This module re-exports them.
"""

from replay.reader import BadLine, LogLine, MatchLog, parse_log, read_log
from replay.records import (
    CLOSE,
    HEADER,
    INPUT,
    OPTIMUM,
    RESERVED_EVENTS,
    RESERVED_KEYS,
    SCHEMA_VERSION,
    SEND,
    LogFormatError,
    LogWriteError,
    UnsupportedSchemaError,
    chain_hash,
    input_record,
    output_records,
    seal,
    software_version,
    to_plain,
    unseal,
)
from replay.writer import MatchLogWriter

__all__ = [
    "CLOSE",
    "HEADER",
    "INPUT",
    "OPTIMUM",
    "RESERVED_EVENTS",
    "RESERVED_KEYS",
    "SCHEMA_VERSION",
    "SEND",
    "BadLine",
    "LogFormatError",
    "LogLine",
    "LogWriteError",
    "MatchLog",
    "MatchLogWriter",
    "UnsupportedSchemaError",
    "chain_hash",
    "input_record",
    "output_records",
    "parse_log",
    "read_log",
    "seal",
    "software_version",
    "to_plain",
    "unseal",
]
