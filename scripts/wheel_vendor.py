"""Completes a repaired wheel: copies in the libraries auditwheel leaves to the system.

auditwheel repair grafts every library outside the manylinux policy's list into the wheel, and
trusts the target machine for the ones on that list. Some of those (X11 and its xcb chain,
which Debian's Cairo links; libbsd; libexpat) are missing from minimal images such as the
python:*-slim containers, where the extension would then fail to import. This copies every
library the extension loads from outside the wheel into meadow_mind.libs/, except the C and
C++ runtime itself (glibc's libraries, libstdc++, libgcc_s) and zlib, which every manylinux
system has; gives each copy the run path $ORIGIN so that they find each other; and rewrites
the wheel's RECORD.

    python scripts/wheel_vendor.py dist/meadow_mind-...whl manylinux_2_36_x86_64

Copies may need a newer glibc than the wheel's tags said (Debian 12's libXdmcp calls glibc
2.36's arc4random_buf), so the tags become PLATFORM, which build_wheel.sh checks against
`auditwheel show`. Prints the new wheel's path.
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile

# What a manylinux system always has: glibc, the C++ runtime, zlib.
SYSTEM = re.compile(
    r"^(linux-vdso|ld-linux|libc|libm|libdl|librt|libpthread|libresolv|libutil|libstdc\+\+|libgcc_s|libz)\.so"
)
LIBS = "meadow_mind.libs"


def outside_libs(ext: str, root: str) -> dict[str, str]:
    """soname -> path of each library the extension loads from outside `root`."""
    out = subprocess.run(["ldd", ext], capture_output=True, text=True, check=True).stdout
    found = {}
    for line in out.splitlines():
        m = re.match(r"\s*(\S+) => (\S+)", line)
        if not m:
            continue
        soname, path = m.groups()
        if path == "not":
            raise SystemExit(f"{ext}: {soname} not found")
        if not os.path.realpath(path).startswith(root + os.sep) and not SYSTEM.match(soname):
            found[soname] = path
    return found


def record_line(root: str, rel: str) -> str:
    data = open(os.path.join(root, rel), "rb").read()
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{rel},sha256={digest},{len(data)}"


def retag(root: str, wheel_info: str, plat: str) -> None:
    """WHEEL's Tag lines: one per Python tag, on `plat` alone."""
    path = os.path.join(root, wheel_info)
    lines = open(path, encoding="utf-8").read().splitlines()
    pys = sorted(
        {"-".join(line.split(": ", 1)[1].split("-")[:2]) for line in lines if line.startswith("Tag: ")}
    )
    kept = [line for line in lines if not line.startswith("Tag: ")]
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(kept + [f"Tag: {py}-{plat}" for py in pys]) + "\n")


def main() -> None:
    wheel, plat = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        root = os.path.realpath(tmp)
        with zipfile.ZipFile(wheel) as z:
            z.extractall(root)
        exts = [
            os.path.join(root, "meadow_mind", f)
            for f in os.listdir(os.path.join(root, "meadow_mind"))
            if f.startswith("_core") and f.endswith(".so")
        ]
        os.makedirs(os.path.join(root, LIBS), exist_ok=True)
        copied = []
        for soname, path in sorted(outside_libs(exts[0], root).items()):
            dest = os.path.join(root, LIBS, soname)
            shutil.copyfile(os.path.realpath(path), dest)
            os.chmod(dest, 0o755)
            subprocess.run(["patchelf", "--set-rpath", "$ORIGIN", dest], check=True)
            copied.append(soname)
        left = outside_libs(exts[0], root)
        if left:
            raise SystemExit(f"still loaded from outside the wheel: {sorted(left)}")
        names = zipfile.ZipFile(wheel).namelist()
        record = [n for n in names if n.endswith(".dist-info/RECORD")][0]
        retag(root, [n for n in names if n.endswith(".dist-info/WHEEL")][0], plat)
        files = []
        for dirpath, _, names in os.walk(root):
            for n in names:
                rel = os.path.relpath(os.path.join(dirpath, n), root)
                if rel != record:
                    files.append(rel)
        files.sort()
        with open(os.path.join(root, record), "w", encoding="utf-8") as f:
            f.write("\n".join([record_line(root, r) for r in files] + [f"{record},,"]) + "\n")
        # name-version-python-abi-platform.whl, the platform part replaced
        parts = os.path.basename(wheel)[: -len(".whl")].split("-")
        out = os.path.join(os.path.dirname(wheel), "-".join(parts[:4] + [plat]) + ".whl")
        with zipfile.ZipFile(out + ".tmp", "w", zipfile.ZIP_DEFLATED) as z:
            for rel in files + [record]:
                z.write(os.path.join(root, rel), rel)
        os.replace(out + ".tmp", out)
        if out != wheel:
            os.remove(wheel)
    print(f"vendored {len(copied)} more libraries: {' '.join(copied)}", file=sys.stderr)
    print(out)


if __name__ == "__main__":
    main()
