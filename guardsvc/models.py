"""Import every model module, so the metadata (and Alembic) sees all tables.

A model module is a ``models.py`` or ``*_models.py`` in any package under guardsvc: a
new feature's tables are found without a line here (``tests/project/test_features.py`` checks
that no table is defined anywhere else).
"""
import importlib
import pkgutil

import guardsvc


def model_modules():
    """The names of every model module under guardsvc."""
    return sorted(module.name for module in pkgutil.walk_packages(guardsvc.__path__, "guardsvc.")
                  if module.name != __name__ and module.name.rpartition(".")[2].endswith("models"))


for _name in model_modules():
    importlib.import_module(_name)
