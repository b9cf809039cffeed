"""Python support from the wheels' own tags (data/torch_wheels.json), read without the network."""

from __future__ import annotations

from torchdoctor.checks.install import releases


def test_the_table_names_its_source() -> None:
    assert "package index" in releases.SOURCE


def test_platforms_are_named_as_the_tables_name_them() -> None:
    assert releases.platform_of("Windows", "AMD64") == "windows-x86_64"
    assert releases.platform_of("Darwin", "arm64") == "macos-arm64"
    assert releases.platform_of("Linux", "aarch64") == "linux-aarch64"
    assert releases.platform_of(None, None) is None


def test_an_unknown_release_or_python_is_no_answer() -> None:
    support = releases.python_support("1.11.0", "3.10.4", "linux-x86_64")
    assert support is not None and support.supported is None
    assert releases.python_support("2.5.1", "three", "linux-x86_64") is None


def test_the_newest_release_for_a_python() -> None:
    assert releases.newest_for_python("3.8.10", "linux-x86_64") == "2.4.1"
    assert releases.newest_for_python("3.6.9", "linux-x86_64") is None
