#!/usr/bin/env bash
# Installs what Orrery's build needs on Debian 12 (and Ubuntu 24.04): the
# Debian packages that are missing, and pinned Python packages. Idempotent;
# installs nothing that is already there. The CUDA toolkit is expected on PATH
# (or in /usr/local/cuda) when the CUDA backend is wanted; without it Orrery
# builds for the CPU.
set -euo pipefail

# Debian 12 versions this was tested with (apt-get picks the distribution's):
# cmake 3.25.1, ninja-build 1.11.1, g++ 12.2, libgtest-dev 1.12.1, libbenchmark-dev 1.7.1,
# libfmt-dev 9.1.0, libcli11-dev 2.1.2, libtomlplusplus-dev 3.3.0, libhdf5-dev 1.10.8,
# libpng-dev 1.6.39, libomp-dev 14, libopenmpi-dev/openmpi-bin 4.1.4 (MPI: optional, used when found).
debs=(cmake ninja-build g++ pkg-config libgtest-dev libgmock-dev libbenchmark-dev libfmt-dev
      libcli11-dev libtomlplusplus-dev libhdf5-dev libpng-dev python3-dev python3-pip
      libopenmpi-dev openmpi-bin)
missing=()
for p in "${debs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Python: pinned, for the package, its tests and the snapshot-layout tests;
# yt, pynbody and astropy so that the tests with the real readers and with
# quantities run instead of skipping (wheels for Python 3.11 on Debian 12:
# about 35 s to install).
py=${PYTHON:-python3}
pins=(numpy==2.2.6 h5py==3.16.0 pytest==9.2.0 pytest-timeout==2.4.0 nanobind==2.9.2 scikit-build-core==1.1.2 matplotlib==3.11.2
      yt==4.4.3 pynbody==2.8.0 astropy==8.0.2)
need=0
for pin in "${pins[@]}"; do
  name=${pin%%==*}
  "$py" -c "import importlib.metadata as m, sys; sys.exit(m.version('$name') != '${pin##*==}')" 2>/dev/null || need=1
done
if ((need)); then
  echo "setup: installing Python packages ${pins[*]}"
  "$py" -m pip install -q --disable-pip-version-check "${pins[@]}" 2>&1 | grep -v "as the 'root' user" || true
fi

# nvcc outside PATH: the toolkit's usual place.
if ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
  echo "setup: nvcc found in /usr/local/cuda/bin (add it to PATH for the CUDA backend)"
fi
