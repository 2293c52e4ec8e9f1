"""The one helper the data scripts share: a package's wheel from PyPI."""
import glob
import subprocess
import sys
import tempfile
import zipfile


def wheel(package, version):
    """Downloads `package==version` (no dependencies) and opens its wheel."""
    tmp = tempfile.mkdtemp()
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "-d", tmp, f"{package}=={version}"],
        check=True,
    )
    return zipfile.ZipFile(glob.glob(f"{tmp}/*.whl")[0])
