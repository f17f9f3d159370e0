"""Maps the repo's top-level folders onto the one import package `cumulo`.

The layout is `server/ driver/ dialect/`, but users import `cumulo.server`,
`cumulo.driver` and `cumulo.dialect`; `package_dir` does the mapping and
`find_packages` keeps new subpackages from being forgotten.
"""

from setuptools import find_packages, setup

ROOTS = {"server": "cumulo.server", "driver": "cumulo.driver", "dialect": "cumulo.dialect",
         "pipeline": "cumulo.pipeline"}

# NB: `cumulo` itself is an implicit namespace package: it has no folder of its own.
packages = []
package_dir = {}
for folder, name in ROOTS.items():
    packages.append(name)
    package_dir[name] = folder
    for sub in find_packages(folder):
        packages.append(f"{name}.{sub}")
        package_dir[f"{name}.{sub}"] = f"{folder}/{sub.replace('.', '/')}"

# `pyspark_cumulo` is a top-level module on purpose: Spark auto-registers the `DefaultSource`
# of every top-level `pyspark_*` module, so `format("cumulo")` needs no register call.
package_dir[""] = "pipeline"
setup(packages=packages, package_dir=package_dir, py_modules=["pyspark_cumulo"])
