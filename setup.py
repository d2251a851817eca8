"""The one compiled module, optional: where it cannot be built (no compiler, no Python headers)
the install goes on and adapters.kube.codec writes the same bytes in Python. Everything else is in
pyproject.toml. A developer's tree builds it in place with `python setup.py build_ext --inplace`."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "adapters.kube._yamlout",
            ["adapters/kube/_yamlout.c"],
            extra_compile_args=["-O2"],
            optional=True,
        )
    ]
)
