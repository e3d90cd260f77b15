"""A real PrivateUse1 device without a cbrt kernel: tensors whose data lives in CPU tensors, with
kernels for moving data and for the ops of the old composite cube root, copysign(pow(abs(a), 1/3), a).

Run as a script it prints, as JSON, what the cube-root entry points return on that device (or the
error they raise); `import torch` then renames PrivateUse1 for the whole process, hence a script.
"""

from __future__ import annotations

import json

import torch
from torch.utils.backend_registration import _setup_privateuseone_for_python_backend

DEVICE = "bcdev"
_setup_privateuseone_for_python_backend(DEVICE)


class BcDeviceTensor(torch.Tensor):
    """A PrivateUse1 tensor holding its data as a CPU tensor in `payload`."""

    payload: torch.Tensor

    @staticmethod
    def __new__(cls, payload: torch.Tensor) -> BcDeviceTensor:
        tensor = torch._C._acc.create_empty_tensor(payload.shape, payload.dtype)
        tensor.__class__ = cls
        return tensor

    def __init__(self, payload: torch.Tensor) -> None:
        self.payload = payload


def on_device(payload: torch.Tensor) -> BcDeviceTensor:
    return BcDeviceTensor(payload)


@torch.library.impl("aten::empty.memory_format", "privateuseone")
def empty(size, *, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None):  # noqa: ANN001, ANN201
    return on_device(torch.empty(size, dtype=dtype or torch.get_default_dtype()))


@torch.library.impl("aten::empty_strided", "privateuseone")
def empty_strided(size, stride, *, dtype=None, layout=None, device=None, pin_memory=None):  # noqa: ANN001, ANN201
    return on_device(torch.empty_strided(size, stride, dtype=dtype or torch.get_default_dtype()))


@torch.library.impl("aten::_copy_from", "privateuseone")
def copy_from(source, destination, non_blocking=False):  # noqa: ANN001, ANN201
    data = source.payload if source.device.type == DEVICE else source
    if destination.device.type == DEVICE:
        destination.payload = data.clone()
    else:
        destination.copy_(data)
    return destination


@torch.library.impl("aten::as_strided", "privateuseone")
def as_strided(a, size, stride, storage_offset=None):  # noqa: ANN001, ANN201
    return on_device(a.payload.as_strided(size, stride, storage_offset))


@torch.library.impl("aten::abs", "privateuseone")
def abs_(a):  # noqa: ANN001, ANN201
    return on_device(a.payload.abs())


@torch.library.impl("aten::pow.Tensor_Scalar", "privateuseone")
def pow_(a, exponent):  # noqa: ANN001, ANN201
    return on_device(a.payload.pow(exponent))


@torch.library.impl("aten::copysign.Tensor", "privateuseone")
def copysign(a, b):  # noqa: ANN001, ANN201
    return on_device(a.payload.copysign(b.payload))


def outcome(call) -> list[float] | str:  # noqa: ANN001
    try:
        result = call()
    except Exception as error:  # noqa: BLE001 - the error is the outcome
        return f"{type(error).__name__}: {str(error).splitlines()[0]}"
    tensor = getattr(result, "tensor", result)  # torch._numpy returns an ndarray over a tensor
    return tensor.to("cpu").tolist()


MARKER = 42.0  # what the kernel registered at run time returns, so its use is seen


def has_cbrt_kernel() -> bool:
    return torch._C._dispatch_has_kernel_for_dispatch_key("aten::cbrt", torch._C._dispatch_key_for_device(DEVICE))


def main() -> None:
    import torch._numpy as tnp

    x = torch.tensor([-27.0, -8.0, -1.0, 0.0, 1.0, 8.0, 1000.0], dtype=torch.float64).to(DEVICE)
    outcomes = {
        "device": x.device.type,
        "has_cbrt_kernel": has_cbrt_kernel(),
        "prims.cbrt": outcome(lambda: torch.ops.prims.cbrt(x)),
        "torch._numpy.cbrt": outcome(lambda: tnp.cbrt(x)),
        "torch._refs.cbrt": outcome(lambda: torch._refs.cbrt(x)),
        "torch.cbrt": outcome(lambda: torch.cbrt(x)),
    }
    # A kernel registered after those calls, then removed: the entry points must follow both.
    library = torch.library.Library("aten", "IMPL")
    library.impl("cbrt", lambda a: on_device(torch.full_like(a.payload, MARKER)), "PrivateUse1")
    outcomes["registered"] = {
        "has_cbrt_kernel": has_cbrt_kernel(),
        "prims.cbrt": outcome(lambda: torch.ops.prims.cbrt(x)),
        "torch._numpy.cbrt": outcome(lambda: tnp.cbrt(x)),
    }
    library._destroy()
    outcomes["removed"] = {
        "has_cbrt_kernel": has_cbrt_kernel(),
        "prims.cbrt": outcome(lambda: torch.ops.prims.cbrt(x)),
        "torch._numpy.cbrt": outcome(lambda: tnp.cbrt(x)),
    }
    print(json.dumps(outcomes))


if __name__ == "__main__":
    main()
