"""The cuDNN version torch reports, as a dotted version: cudnn_version.h encodes CUDNN_VERSION as
MAJOR * 1000 + MINOR * 100 + PATCHLEVEL up to cuDNN 8 and MAJOR * 10000 + MINOR * 100 + PATCHLEVEL from
cuDNN 9 (torch.backends.cudnn.version() returns that integer: 8902 for 8.9.2, 90100 for 9.1.0)."""

from __future__ import annotations

import pytest

from torchdoctor.checks.install.libraries_judge import cudnn_text


@pytest.mark.parametrize(
    ("version", "text"),
    [
        (7605, "7.6.5"),
        (8005, "8.0.5"),
        (8902, "8.9.2"),
        (90000, "9.0.0"),
        (90100, "9.1.0"),
        (90501, "9.5.1"),
        (91002, "9.10.2"),
        (91317, "9.13.17"),
    ],
)
def test_cudnn_versions_of_both_encodings_read_as_torch_prints_them(version: int, text: str) -> None:
    assert cudnn_text(version) == text
