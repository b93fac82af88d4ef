"""``masrl.traces`` names its public API lazily (PEP 562), so that ``masrl validate`` does not
import replay, credit and metrics. A public name that is also a sub-module's name (``replay``,
the function, defined in ``masrl.traces.replay``) must stay the public object even once the
sub-module has been imported, which binds the module to the package's attribute of that name.
Each check runs in a fresh interpreter: in this one, the modules are long imported."""

from __future__ import annotations

import json
import pkgutil
import subprocess
import sys

import masrl.traces


def _python(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_replay_is_the_function_after_its_module_was_imported():
    code = (
        "import masrl.traces.replay, sys\n"
        "assert isinstance(sys.modules['masrl.traces.replay'], type(sys))\n"
        "from masrl.traces import Replay, load_trace, replay, resources\n"
        "assert callable(replay) and not isinstance(replay, type(sys)), replay\n"
        "found = replay(load_trace(resources.example('hierarchical')))\n"
        "assert isinstance(found, Replay), type(found)\n"
        "print(found.to_dict()['trace_id'])\n"
    )
    assert _python(code) == "example-hierarchical"


def test_replay_is_the_function_when_the_package_comes_first_too():
    code = ("from masrl.traces import replay\n"
            "import masrl.traces.replay\n"
            "import masrl.traces as traces\n"
            "print(traces.replay.__name__, type(traces.replay).__name__)\n")
    assert _python(code) == "replay function"


def test_every_public_name_is_its_defining_object_after_every_module_is_imported():
    """Whatever was imported first (each sub-module of the package), each public name is the
    object its module defines; and the names that are also sub-modules' names are declared."""
    modules = sorted(m.name for m in pkgutil.iter_modules(masrl.traces.__path__))
    public = dict(masrl.traces._PUBLIC)
    assert {name for name in public if name in modules} == set(masrl.traces.SHADOWED)
    code = (
        "import importlib, json\n"
        f"for module in {[m for m in modules if not m.startswith('_')]!r}:\n"
        "    try:\n"
        "        importlib.import_module('masrl.traces.' + module)\n"
        "    except ImportError:\n"  # an optional extra's library
        "        pass\n"
        "import masrl.traces as traces\n"
        f"public = {public!r}\n"
        "print(json.dumps(sorted(name for name, where in public.items() if getattr(traces, name)"
        " is not getattr(importlib.import_module(where), name))))\n"
    )
    assert json.loads(_python(code)) == []


def test_validating_imports_no_replay_credit_or_metrics():
    code = ("import sys\n"
            "from masrl.commands import main\n"
            "from masrl.traces import resources\n"
            "assert main(['validate', str(resources.example('hierarchical'))]) == 0\n"
            "print(sorted(m for m in ('masrl.traces.replay', 'masrl.traces.credit',"
            " 'masrl.traces.metrics') if m in sys.modules))\n")
    assert _python(code).splitlines()[-1] == "[]"  # after the command's own line


def test_star_import_and_dir_name_the_public_api():
    code = ("from masrl.traces import *\n"
            "import masrl.traces as traces\n"
            "print(callable(replay), Replay.__name__, 'replay' in dir(traces),"
            " 'validate_file' in dir(traces))\n")
    assert _python(code) == "True Replay True True"
