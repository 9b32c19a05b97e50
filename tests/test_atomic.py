"""The one atomic write: all or nothing, permissions kept, nothing left behind on failure."""

import pytest

from voiceagent.atomic import atomic_file, write_atomic


def test_replaces_the_contents_and_keeps_the_files_permissions(tmp_path):
    path = tmp_path / "script.sh"
    path.write_text("old")
    path.chmod(0o750)
    write_atomic(path, "new ✓")
    assert path.read_text(encoding="utf-8") == "new ✓"
    assert path.stat().st_mode & 0o777 == 0o750
    assert [p.name for p in tmp_path.iterdir()] == ["script.sh"]


def test_a_new_file_gets_the_mode_asked_for_and_its_folder(tmp_path):
    write_atomic(tmp_path / "a" / "plain.txt", b"x")
    write_atomic(tmp_path / "a" / "private.txt", "y", mode=0o600)
    assert (tmp_path / "a" / "plain.txt").stat().st_mode & 0o777 == 0o644
    assert (tmp_path / "a" / "private.txt").stat().st_mode & 0o777 == 0o600


def test_a_failing_write_leaves_the_old_file_and_no_temporary(tmp_path):
    path = tmp_path / "model.bin"
    path.write_bytes(b"good")
    with pytest.raises(ValueError), atomic_file(path) as f:
        f.write(b"half")
        raise ValueError("checksum mismatch")
    assert path.read_bytes() == b"good"
    assert [p.name for p in tmp_path.iterdir()] == ["model.bin"]
