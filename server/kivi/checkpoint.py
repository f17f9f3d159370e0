"""Checkpoint files: each region's versions as of a timestamp, written atomically.

Recovery = load the checkpoints, then replay the redo records with commit ts
greater than the node's `checkpoint_ts` (the smallest over its regions, capped by the
manifest's).
Replay is idempotent, so records that the checkpoint already holds do no
harm. NB: the caller must checkpoint at a ts whose commits have all been
applied to the node (the snapshot, say), or those below it that arrive later
would be neither in the file nor replayed.

Layout: one file per region, `<data_dir>/kivi/s<space>-<lo as hex>.ckpt`,
holding a msgpack `RegionData` (`kivi.wire`), and a manifest, `CHECKPOINT`, holding
the ts of the last checkpoint whose files were *all* written. A crash in the middle
of a checkpoint leaves some files at the new ts and the others older or missing (a
region created since the last checkpoint has no file at all), so the files alone
cannot tell where replay must start: the node reports no more than the manifest's ts. A file is written to a temporary
name, fsynced, renamed over the old one, and the directory fsynced, so a crash
leaves either the old or the new checkpoint, never half of one. Files of
regions the node no longer holds (split, moved away, dropped) are removed
after the new ones are in place.

A background checkpoint writes a region a window of keys at a time
(`write_windows`): MAGIC, the checkpoint ts (8 bytes), then frames of an 8-byte
length and a `RegionData` of up to FRAME of that window's keys. Packing a region
as one message needs all of its rows decoded at once: at TPC-H SF 0.3 that took the server from 3.0 to 4.5 GB RSS, and SF 1
three times as much. `read_region` reads both layouts (a moved or split region's
file is still one message, `write_region`).

A region not written since its file's checkpoint is not written again: the file
holds its state at the new ts too, and only the ts in its header is rewritten
(`restamp`; a crash leaves the old or the new ts, both true). Without this each
checkpoint rewrote every table whole: after a TPC-H load, minutes of CPU beside
the queries for tables no one had written since.

>>> import tempfile
>>> d = Path(tempfile.mkdtemp())
>>> p = write_windows(d, Windows(7, b"", None, 9, iter([([b"a"], [((9, (1,)),)]),
...                                                    ([b"b"], [((8, (2,)), (3, None))])])))
>>> r = read_region(p)
>>> r.space, r.keys, [list(c) for c in r.chains], r.checkpoint_ts
(7, [b'a', b'b'], [[(9, (1,))], [(8, (2,)), (3, None)]], 9)
>>> read_region(write_windows(d, Windows(7, b"", None, 9, iter([])))).keys
[]
>>> restamp(p, 12), read_region(p).checkpoint_ts, len(read_region(p).keys)
(True, 12, 0)
"""

from __future__ import annotations

import os
import struct
from collections.abc import Iterable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any, NamedTuple

from .api import RegionData
from .columnar.pace import background
from .wire import packb, unpackb

SUFFIX = ".ckpt"
# keys per frame of a windowed file: packing one is a single GIL hold (msgpack), which at
# a window's 64k keys stalled the event loop's sessions for tens of ms each; between frames
# the writer gives way to OLTP (`columnar.pace.background`)
FRAME = 4096
MAGIC = b"CUMULO-CKPT-WINDOWS\n"  # a file of frames (`write_windows`); else one message
_LEN = struct.Struct(">Q")


def windowed(path: Path) -> bool:
    """Tells whether the file exists and was written by `write_windows` (can be restamped)."""
    try:
        with open(path, "rb") as f:
            return f.read(len(MAGIC) + _LEN.size)[:len(MAGIC)] == MAGIC
    except FileNotFoundError:
        return False


def restamp(path: Path, ts: int) -> bool:
    """Moves a windowed file's checkpoint ts to `ts` in place; False if it is not one."""
    if not windowed(path):
        return False
    with open(path, "r+b") as f:
        f.seek(len(MAGIC))
        f.write(_LEN.pack(ts))
        f.flush()
        os.fsync(f.fileno())
    return True


class Windows(NamedTuple):
    """A region to write a window at a time: its keys and chains in key order, in pieces
    (`VersionStore.export_windows`), decoded as the writer reaches them; None: the region
    is unchanged since its file was written, whose ts is only moved to `ts` (`restamp`)."""

    space: int
    lo: bytes
    hi: bytes | None
    ts: int
    windows: Iterator[tuple[list[bytes], Any]] | None


def kivi_dir(data_dir: str | os.PathLike[str]) -> Path:
    """Returns (creating it) the directory that holds a node's checkpoint files."""
    d = Path(data_dir) / "kivi"
    d.mkdir(parents=True, exist_ok=True)
    return d


def region_file(directory: Path, space: int, lo: bytes) -> Path:
    """Returns the checkpoint file name of the region of `space` starting at `lo`."""
    return directory / f"s{space}-{lo.hex()}{SUFFIX}"


def fsync_dir(directory: Path) -> None:
    """Makes renames and deletions in a directory durable."""
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_region(directory: Path, data: RegionData) -> Path:
    """Writes one region's checkpoint atomically; returns its path."""
    path = region_file(directory, data.space, data.lo)
    tmp = path.with_suffix(".tmp")
    with open(tmp, "wb") as f:
        f.write(packb(data))
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    return path


def write_windows(directory: Path, region: Windows) -> Path:
    """Writes one region's checkpoint a window at a time, atomically; returns its path."""
    path = region_file(directory, region.space, region.lo)
    if region.windows is None and restamp(path, region.ts):
        return path
    if region.windows is None:  # NB: the caller checks `windowed` first
        raise ValueError(f"{path}: no windowed checkpoint to restamp")
    tmp = path.with_suffix(".tmp")
    with open(tmp, "wb") as f:
        f.write(MAGIC)
        f.write(_LEN.pack(region.ts))
        empty = True
        for keys, chains in region.windows:
            for i in range(0, len(keys), FRAME):
                background()  # NB: between frames; the caller holds no lock a session takes
                _frame(f, RegionData(region.space, region.lo, region.hi, keys[i:i + FRAME],
                                     chains[i:i + FRAME], region.ts))
                empty = False
        if empty:  # NB: one frame at least: it names the region
            _frame(f, RegionData(region.space, region.lo, region.hi, [], [], region.ts))
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    return path


def _frame(f: Any, data: RegionData) -> None:
    blob = packb(data)
    f.write(_LEN.pack(len(blob)))
    f.write(blob)


def read_region(path: Path) -> RegionData:
    """Reads one region's checkpoint file (either layout); ValueError if it is not one."""
    with open(path, "rb") as f:
        head = f.read(len(MAGIC))
        if head != MAGIC:
            data = unpackb(head + f.read())
            if not isinstance(data, RegionData):
                raise ValueError(f"{path} is not a KiVi region checkpoint")
            return data
        stamp = f.read(_LEN.size)
        if len(stamp) < _LEN.size:
            raise ValueError(f"{path}: a checkpoint file cut short")
        first: RegionData | None = None
        keys: list[bytes] = []
        chains: list[Any] = []
        while size := f.read(_LEN.size):
            if len(size) < _LEN.size:
                raise ValueError(f"{path}: a checkpoint file cut short")
            blob = f.read(_LEN.unpack(size)[0])
            part = unpackb(blob)
            if not isinstance(part, RegionData):
                raise ValueError(f"{path} is not a KiVi region checkpoint")
            first = first or part
            keys += part.keys
            chains += part.chains
            del blob, part
    if first is None:
        raise ValueError(f"{path}: a checkpoint file with no region")
    return replace(first, keys=keys, chains=chains, checkpoint_ts=_LEN.unpack(stamp)[0])


def write_all(directory: Path, regions: Iterable[RegionData | Windows]) -> None:
    """Writes the checkpoints of every region and removes files of regions no longer held.

    `regions` may be a generator: each region is exported as the writer reaches it."""
    keep = {(write_region(directory, r) if isinstance(r, RegionData)
             else write_windows(directory, r)).name for r in regions}
    for p in directory.iterdir():
        if p.suffix in (SUFFIX, ".tmp") and p.name not in keep:
            p.unlink(missing_ok=True)
    fsync_dir(directory)


def remove_space(directory: Path, space: int) -> None:
    """Deletes the checkpoint files of a space (after DROP TABLE / TRUNCATE)."""
    for p in directory.glob(f"s{space}-*{SUFFIX}"):
        p.unlink(missing_ok=True)
    fsync_dir(directory)


def remove_region(directory: Path, space: int, lo: bytes) -> None:
    """Deletes the checkpoint file of one region (after it moved away)."""
    region_file(directory, space, lo).unlink(missing_ok=True)
    fsync_dir(directory)


MANIFEST = "CHECKPOINT"


def write_manifest(directory: Path, ts: int) -> None:
    """Records, atomically, that every region file of the node is complete as of ts."""
    path = directory / MANIFEST
    tmp = directory / (MANIFEST + ".new")
    with open(tmp, "w") as f:
        f.write(str(ts))
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    fsync_dir(directory)


def read_manifest(directory: Path) -> int | None:
    """The ts of the node's last complete checkpoint; None if it never wrote a manifest."""
    try:
        return int((directory / MANIFEST).read_text().strip() or 0)
    except FileNotFoundError:
        return None


def load_all(directory: Path) -> list[RegionData]:
    """Reads every checkpoint file in the directory (leftover temporary files are ignored)."""
    return [read_region(p) for p in sorted(directory.glob(f"*{SUFFIX}"))]
