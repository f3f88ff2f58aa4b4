#!/usr/bin/env bash
# Remakes the README's example pictures (docs/images/*.png) from shortened
# CPU runs of examples/*.toml: 2048 particles (the halo: its initial
# conditions), small PNGs. Needs a built CLI (ORRERY_CLI, default the
# release build's) and matplotlib; runs for a few minutes on two cores.
set -euo pipefail
cd "$(dirname "$0")/.."
O=${ORRERY_CLI:-$PWD/build/release/apps/orrery/orrery}
W=$(mktemp -d)
D=docs/images
mkdir -p "$D"
short=(--set initial_conditions.count=2048)
look=(--resolution 256 --smooth 3 --decades 3)

"$O" run examples/plummer_equilibrium.toml "${short[@]}" --set output.directory="$W/plummer" \
  --set output.snapshot_interval=10 --set output.diagnostics_interval=0.25
"$O" render "$W/plummer/snapshot_0002.h5" -o "$D/plummer_equilibrium.png" --width 8 "${look[@]}"
python3 scripts/plot_diagnostics.py "$W/plummer/diagnostics.csv" -o "$D/plummer_equilibrium_diagnostics.png" \
  --title "Plummer sphere, N = 2048"

"$O" run examples/cold_collapse.toml "${short[@]}" --set integration.t_end=8 --set output.directory="$W/cold" \
  --set output.snapshot_interval=4
"$O" render "$W/cold/snapshot_0002.h5" -o "$D/cold_collapse.png" --width 6 "${look[@]}"
python3 scripts/plot_diagnostics.py "$W/cold/diagnostics.csv" -o "$D/cold_collapse_diagnostics.png" \
  --title "Cold collapse, N = 2048"

"$O" ic examples/hernquist_halo.toml -o "$W/halo.h5"
"$O" render "$W/halo.h5" -o "$D/hernquist_halo.png" --width 120 --resolution 256 --colormap magma --smooth 2 --decades 3.5

"$O" run examples/plummer_collision.toml "${short[@]}" --set integration.t_end=15 --set output.directory="$W/collision" \
  --set output.snapshot_interval=7.5
"$O" render "$W/collision/snapshot_0001.h5" -o "$D/plummer_collision_approach.png" --width 14 "${look[@]}"
"$O" render "$W/collision/snapshot_0002.h5" -o "$D/plummer_collision_merger.png" --width 14 "${look[@]}"

"$O" run examples/kepler_orbit.toml --set integration.t_end=62.83185307179587 --set output.directory="$W/kepler"
python3 scripts/plot_diagnostics.py "$W/kepler/diagnostics.csv" -o "$D/kepler_orbit.png" \
  --title "Kepler orbit e = 0.5, 10 orbits"

# Palette PNGs keep the repository small (Pillow comes with matplotlib).
python3 - "$D" <<'PY'
import glob, sys
from PIL import Image
for f in glob.glob(sys.argv[1] + "/*.png"):
    Image.open(f).convert("RGB").quantize(colors=96, method=Image.Quantize.MEDIANCUT).save(f, optimize=True)
PY
rm -rf "$W"
echo "pictures in $D"
