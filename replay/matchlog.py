"""Match logs (``docs/log-format.md``): one import path for the records, writer and reader.

The log is four modules: :mod:`replay.records` (schema, hash chain, the lines an engine input
or output is logged as), :mod:`replay.writer` (:class:`MatchLogWriter`), :mod:`replay.reader`
(:func:`parse_log`) and :mod:`replay.logfile` (:func:`read_log`, either format). This module
re-exports them.
"""

from replay.logfile import read_log
from replay.reader import BadLine, LogLine, MatchLog, parse_log
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
