"""What the linter knows about the PyTorch API: qualified names of factories, tensor methods, layers."""

from __future__ import annotations

import ast
import functools
import re


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


# torch.<name>(...) functions that create a tensor and accept device= (a created-then-moved tensor could have
# been created on the device).
CREATION_FACTORIES: frozenset[str] = frozenset(
    f"torch.{name}"
    for name in _words(
        "zeros ones empty full rand randn randint randperm arange range linspace logspace eye tensor "
        "as_tensor empty_strided normal tril_indices triu_indices sparse_coo_tensor"
    )
)

# Other torch.<name>(...) calls that return a tensor.
_COMPUTED_TENSORS: frozenset[str] = frozenset(
    f"torch.{name}"
    for name in _words(
        "zeros_like ones_like empty_like full_like rand_like randn_like randint_like from_numpy frombuffer "
        "Tensor FloatTensor DoubleTensor HalfTensor BFloat16Tensor LongTensor IntTensor ShortTensor "
        "ByteTensor CharTensor BoolTensor cat concat concatenate stack hstack vstack dstack where matmul mm "
        "bmm einsum exp log sqrt rsqrt abs clamp clip sigmoid tanh softmax log_softmax relu flatten reshape "
        "gather masked_fill cumsum cumprod argmax argmin outer cdist tril triu diag bernoulli multinomial "
        "polar complex flip roll squeeze unsqueeze transpose permute narrow index_select masked_select "
        "mul add sub div neg sign round floor ceil pow maximum minimum logical_and logical_or logical_not "
        "isnan isinf isfinite eq ne lt le gt ge bucketize searchsorted repeat_interleave tile"
    )
)
TENSOR_FUNCTIONS: frozenset[str] = CREATION_FACTORIES | _COMPUTED_TENSORS | {"torch.autograd.Variable"}

# Tensor methods whose result is a tensor (on the receiver's device unless it is a move).
TENSOR_METHODS: frozenset[str] = frozenset(
    _words(
        "view view_as reshape reshape_as permute transpose t unsqueeze squeeze flatten unflatten contiguous "
        "clone detach expand expand_as repeat repeat_interleave narrow select index_select masked_select "
        "masked_fill masked_fill_ gather scatter scatter_ type_as abs exp log sqrt pow sum mean std var norm "
        "softmax log_softmax sigmoid tanh relu clamp clamp_ clip argmax argmin cumsum matmul mm bmm mul add "
        "sub div neg round floor ceil sign flip roll new_zeros new_ones new_empty new_full new_tensor "
        "fill_ zero_ add_ sub_ mul_ div_ copy_ requires_grad_ detach_ unsqueeze_ squeeze_ t_ float_ "
        "long int short bool byte char half float double bfloat16 to cuda cpu pin_memory mps xpu"
    )
)

# Methods that return a converted copy of a tensor (Tensor.to returns a new tensor; Module.to is in place).
MOVE_METHODS: frozenset[str] = frozenset(
    _words("to cuda cpu half float double bfloat16 long int short bool byte char type pin_memory mps xpu")
)

# Module methods that return the module itself.
MODULE_SELF_METHODS: frozenset[str] = frozenset(
    _words("to cuda cpu half float double bfloat16 type train eval requires_grad_ share_memory apply xpu mps")
)

# Attributes that tensors (and arrays) have and modules, lists or BatchEncodings do not.
TENSOR_ONLY: frozenset[str] = frozenset(
    _words(
        "shape ndim ndimension dim numel item tolist unsqueeze squeeze view view_as reshape permute "
        "transpose contiguous detach clone expand expand_as masked_fill index_select gather argmax argmin "
        "flatten new_zeros new_ones new_full new_tensor element_size data_ptr is_contiguous nonzero topk "
        "narrow is_cuda grad_fn size stride"
    )
)

# Methods only a tensor has (not a NumPy array: no reshape, transpose, flatten, squeeze) that return a tensor:
# whatever an unknown receiver is, ``x.contiguous()`` is a tensor.
TENSOR_PRODUCERS: frozenset[str] = frozenset(
    _words(
        "unsqueeze contiguous permute detach clone expand expand_as view_as masked_fill index_select narrow "
        "new_zeros new_ones new_full new_empty new_tensor type_as"
    )
)

TENSOR_ATTRIBUTES: frozenset[str] = frozenset(_words("T mT H mH data grad real imag"))

DTYPES: frozenset[str] = frozenset(
    f"torch.{name}"
    for name in _words(
        "float32 float float64 double float16 half bfloat16 int64 long int32 int int16 short int8 uint8 "
        "uint16 uint32 uint64 bool complex32 complex64 complex128 cfloat cdouble chalf float8_e4m3fn "
        "float8_e5m2"
    )
)
HALF_DTYPES: frozenset[str] = frozenset({"torch.float16", "torch.half"})

# nn layers without parameters or buffers: building one inside forward() is wasteful but not a bug.
STATELESS_LAYERS: frozenset[str] = frozenset(
    _words(
        "ReLU ReLU6 RReLU LeakyReLU ELU SELU CELU GELU SiLU Mish Sigmoid LogSigmoid Tanh Tanhshrink Softmax "
        "Softmax2d LogSoftmax Softmin Softplus Softsign Softshrink Hardshrink Hardtanh Hardswish Hardsigmoid "
        "Threshold GLU Dropout Dropout1d Dropout2d Dropout3d AlphaDropout FeatureAlphaDropout Identity "
        "Flatten Unflatten MaxPool1d MaxPool2d MaxPool3d AvgPool1d AvgPool2d AvgPool3d AdaptiveAvgPool1d "
        "AdaptiveAvgPool2d AdaptiveAvgPool3d AdaptiveMaxPool1d AdaptiveMaxPool2d AdaptiveMaxPool3d LPPool1d "
        "LPPool2d LPPool3d MaxUnpool1d MaxUnpool2d MaxUnpool3d FractionalMaxPool2d FractionalMaxPool3d "
        "Upsample UpsamplingNearest2d UpsamplingBilinear2d PixelShuffle PixelUnshuffle ChannelShuffle Fold "
        "Unfold CosineSimilarity PairwiseDistance ZeroPad1d ZeroPad2d ZeroPad3d ConstantPad1d ConstantPad2d "
        "ConstantPad3d ReflectionPad1d ReflectionPad2d ReflectionPad3d ReplicationPad1d ReplicationPad2d "
        "ReplicationPad3d CircularPad1d CircularPad2d CircularPad3d LocalResponseNorm CrossMapLRN2d"
    )
)
# torch.nn names that are not layers a user builds in forward by mistake: containers, bases, tensors.
NOT_LAYERS: frozenset[str] = frozenset(
    _words(
        "Module Sequential ModuleList ModuleDict ParameterList ParameterDict Parameter Buffer "
        "UninitializedParameter UninitializedBuffer"
    )
)
# Norm layers with (keyword, default) flags: with every flag off the layer has no parameters or buffers.
NORM_FLAGS: dict[str, tuple[tuple[str, bool], ...]] = {
    **{
        name: (("affine", True), ("track_running_stats", True))
        for name in ("BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "SyncBatchNorm")
    },
    **{
        name: (("affine", False), ("track_running_stats", False))
        for name in ("InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d")
    },
    "LayerNorm": (("elementwise_affine", True),),
    "RMSNorm": (("elementwise_affine", True),),
    "GroupNorm": (("affine", True),),
}

LIGHTNING_MODULES: frozenset[str] = frozenset(
    {
        "pytorch_lightning.LightningModule",
        "lightning.LightningModule",
        "lightning.pytorch.LightningModule",
        "transformers.PreTrainedModel",
        "transformers.modeling_utils.PreTrainedModel",
    }
)

_CANONICAL_PREFIXES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"^torch\.nn\.modules(?:\.\w+)*\.(?=[A-Z]\w*$)"), "torch.nn."),
    (re.compile(r"^torch\.nn\.parallel\.(?:distributed|data_parallel)\.(?=\w+$)"), "torch.nn.parallel."),
    (re.compile(r"^torch\.nn\.parameter\.(?=\w+$)"), "torch.nn."),
    (re.compile(r"^torch\.utils\.data\.(?:dataloader|dataset|sampler)\.(?=\w+$)"), "torch.utils.data."),
    (re.compile(r"^torch\.serialization\.(?=load$)"), "torch."),
    (re.compile(r"^torch\.functional\.(?=\w+$)"), "torch."),
    (re.compile(r"^torch\.autograd\.variable\.(?=Variable$)"), "torch.autograd."),
)


@functools.lru_cache(maxsize=8192)
def canonical(qualname: str) -> str:
    """Spell a name the way the torch docs do: torch.nn.modules.linear.Linear -> torch.nn.Linear."""
    if qualname.startswith("torch."):
        for pattern, replacement in _CANONICAL_PREFIXES:
            if pattern.match(qualname):
                return pattern.sub(replacement, qualname, count=1)
    return qualname


def layer_name(qualname: str) -> str | None:
    """``Linear`` for ``torch.nn.Linear``; None for anything that is not an nn layer class."""
    if not qualname.startswith("torch.nn."):
        return None
    name = qualname[len("torch.nn.") :]
    if "." in name or not name[:1].isupper() or name in NOT_LAYERS:
        return None
    return name


def is_model_factory(qualname: str) -> bool:
    """Calls that return an nn.Module: torchvision/timm model builders, transformers from_pretrained."""
    if qualname.startswith("torchvision.models.") and qualname.rsplit(".", 1)[-1][:1].islower():
        return True
    if qualname == "timm.create_model":
        return True
    if qualname.startswith("transformers.") and qualname.endswith(".from_pretrained"):
        owner = qualname.split(".")[-2]
        return "Model" in owner or "For" in owner
    return False


CUDA_DEVICE = re.compile(r"cuda(?::\d+)?")


def cuda_literals(expr: ast.expr) -> list[str]:
    """The string constants naming a CUDA device in ``expr``: ``"cuda"``, ``"cuda:0"``, or either branch of
    ``"cuda" if ... else "cpu"``."""
    if isinstance(expr, ast.Constant):
        if isinstance(expr.value, str) and CUDA_DEVICE.fullmatch(expr.value):
            return [expr.value]
        return []
    if isinstance(expr, ast.IfExp):
        return cuda_literals(expr.body) + cuda_literals(expr.orelse)
    return []
