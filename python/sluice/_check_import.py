"""The last step of a build: import the version's entry file in its built environment, as a
replica will, so a missing dependency fails the build (its error in the build log), not the
first job. Reads SLUICE_ENTRY_FILE and SLUICE_ENTRY_SYMBOL like the runtime; `__setup__` is
not run (it may need the GPU or minutes of work); the module's top-level code is."""

import os
import sys

from ._entry import import_entry
from ._runtime import format_error


def main() -> int:
    cwd = os.getcwd()
    if cwd not in sys.path:
        sys.path.insert(0, cwd)
    entry_file = os.environ.get("SLUICE_ENTRY_FILE", "")
    symbol = os.environ.get("SLUICE_ENTRY_SYMBOL", "")
    try:
        module = import_entry(entry_file)
    except (Exception, SystemExit) as error:
        sys.stdout.write(format_error(error))
        # The first line again, last: the build's failure names it.
        sys.stdout.write(format_error(error).splitlines()[0] + "\n")
        return 1
    if not hasattr(module, symbol):
        print(f"{entry_file} defines no {symbol}")
        return 1
    print(f"{entry_file} imports, and defines {symbol}.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
