import torch
from torch.utils.cpp_extension import load_inline
# fixture kernel
