"""Regenerate the printable calibration sheets in this folder.

    .venv/bin/python calibration/make_prints.py

Writes the mat's four corner sheets (A4 and Letter), the whole mat on one 800 mm page
(for a print shop), and the ChArUco board for measuring the lens (A4 and Letter). The
same files come from ``table-controller calibrate mat`` and ``calibrate board``.
"""

from __future__ import annotations

import sys
from pathlib import Path

from table_controller.vision.calibration import write_board, write_corner_sheets, write_full_mat

HERE = Path(__file__).resolve().parent


def main(folder: Path = HERE) -> list[Path]:
    written = [
        write_corner_sheets(folder / "mat-corners-a4.pdf", "a4"),
        write_corner_sheets(folder / "mat-corners-letter.pdf", "letter"),
        write_full_mat(folder / "mat-800mm.pdf"),
        write_board(folder / "charuco-board-a4.pdf", "a4"),
        write_board(folder / "charuco-board-letter.pdf", "letter"),
    ]
    for path in written:
        print(
            f"{path.relative_to(folder.parent) if path.is_relative_to(folder.parent) else path}"
            f"  ({path.stat().st_size // 1024 + 1} KB)"
        )
    return written


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE)
