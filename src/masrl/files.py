"""Writing files without ever leaving half of one: the package's one atomic writer.

Text goes to a temporary file beside the target, is flushed to disk, then renamed over the
target, so a reader sees the old file or the new one, never a mix; on any failure the temporary
file is removed and the old target is kept.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_text_atomically(path: str | os.PathLike, text: str) -> Path:
    """Write ``text`` (UTF-8, newlines as given) to ``path`` atomically; return the path."""
    target = Path(path)
    handle, partial = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.",
                                       suffix=".partial")
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(partial, 0o644)
        os.replace(partial, target)
    except BaseException:
        Path(partial).unlink(missing_ok=True)
        raise
    return target
