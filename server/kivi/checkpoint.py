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
"""

from __future__ import annotations

import os
from pathlib import Path

from .api import RegionData
from .wire import packb, unpackb

SUFFIX = ".ckpt"


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


def write_all(directory: Path, regions: list[RegionData]) -> None:
    """Writes the checkpoints of every region and removes files of regions no longer held."""
    keep = {write_region(directory, r).name for r in regions}
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
    out = []
    for p in sorted(directory.glob(f"*{SUFFIX}")):
        data = unpackb(p.read_bytes())
        if not isinstance(data, RegionData):
            raise ValueError(f"{p} is not a KiVi region checkpoint")
        out.append(data)
    return out
