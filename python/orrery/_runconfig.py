"""The run configuration as TOML text, in the CLI's schema ([gravity],
[integration]), stored in snapshots and checkpoints so that `orrery run`
can restart from a checkpoint Python wrote, and Python can continue one the
CLI wrote."""

try:
    import tomllib
except ImportError:  # Python < 3.11
    import tomli as tomllib

from . import _gravity

# Python keyword -> key in the [gravity] table, where they differ.
_GRAVITY_KEYS = {"multipole": "multipole_order"}


def _toml_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, float):
        return repr(v)  # shortest round-trip form: read back bit-identically
    return str(v)


def to_toml(settings, dt):
    """TOML text of the gravity settings and the time step."""
    lines = ["[gravity]"]
    lines += [f"{_GRAVITY_KEYS.get(k, k)} = {_toml_value(settings[k])}" for k in _gravity.SETTINGS]
    lines += ["", "[integration]", f"dt = {_toml_value(float(dt))}", ""]
    return "\n".join(lines)


def gravity_settings(text):
    """The gravity keywords from a run configuration's TOML text (keys absent
    from the text are left to the defaults)."""
    table = tomllib.loads(text).get("gravity", {}) if text else {}
    back = {v: k for k, v in _GRAVITY_KEYS.items()}
    return {back.get(k, k): v for k, v in table.items() if back.get(k, k) in _gravity.SETTINGS}
