"""daniilidis-group/neural_renderer, neural_renderer/look_at.py: the renderer's "look at" camera transform.

Source: https://github.com/daniilidis-group/neural_renderer/blob/2a7c913bac871f39ede497b67fa27d131bc3e404/neural_renderer/look_at.py
(all 62 lines, verbatim). License: MIT, Copyright (c) 2017 Hiroharu Kato, Copyright (c) 2018 Nikos
Kolotouros (LICENSE at that commit). The lint corpus labels lines 22 and 29 (TDL001): ``at.to(device)``
and ``up.to(device)`` as statements, their results discarded, so a tensor ``at`` or ``up`` stays where
it was (fixed upstream by PR #52, "torch.Tensor.to is not in-place, need an assignment").

Driver (below the separator): ``Renderer.render`` at that commit calls ``nr.look_at(vertices,
self.eye)`` on the mesh's vertices, which are on the GPU (``vertices.cuda()`` in the examples), with
``self.eye = [0, 0, -(1. / math.tan(math.radians(30)) + 1)]``. The driver does that call, then the
same call with the camera's ``up`` given as a tensor, the branch the function has for it: a CPU
tensor, as ``torch.tensor`` makes it (a 2-vertex batch of 4 vertices instead of a mesh).
"""
# ruff: noqa
# fmt: off

import numpy as np
import torch
import torch.nn.functional as F


def look_at(vertices, eye, at=[0, 0, 0], up=[0, 1, 0]):
    """
    "Look at" transformation of vertices.
    """
    if (vertices.ndimension() != 3):
        raise ValueError('vertices Tensor should have 3 dimensions')

    device = vertices.device

    # if list or tuple convert to numpy array
    if isinstance(at, list) or isinstance(at, tuple):
        at = torch.tensor(at, dtype=torch.float32, device=device)
    # if numpy array convert to tensor
    elif isinstance(at, np.ndarray):
        at = torch.from_numpy(at).to(device)
    elif torch.is_tensor(at):
        at.to(device)

    if isinstance(up, list) or isinstance(up, tuple):
        up = torch.tensor(up, dtype=torch.float32, device=device)
    elif isinstance(up, np.ndarray):
        up = torch.from_numpy(up).to(device)
    elif torch.is_tensor(up):
        up.to(device)

    if isinstance(eye, list) or isinstance(eye, tuple):
        eye = torch.tensor(eye, dtype=torch.float32, device=device)
    elif isinstance(eye, np.ndarray):
        eye = torch.from_numpy(eye).to(device)
    else:
        eye = eye.to(device)

    batch_size = vertices.shape[0]
    if eye.ndimension() == 1:
        eye = eye[None, :].repeat(batch_size, 1)
    if at.ndimension() == 1:
        at = at[None, :].repeat(batch_size, 1)
    if up.ndimension() == 1:
        up = up[None, :].repeat(batch_size, 1)

    # create new axes
    # eps is chosen as 0.5 to match the chainer version
    z_axis = F.normalize(at - eye, eps=1e-5)
    x_axis = F.normalize(torch.cross(up, z_axis), eps=1e-5)
    y_axis = F.normalize(torch.cross(z_axis, x_axis), eps=1e-5)

    # create rotation matrix: [bs, 3, 3]
    r = torch.cat((x_axis[:, None, :], y_axis[:, None, :], z_axis[:, None, :]), dim=1)

    # apply
    # [bs, nv, 3] -> [bs, nv, 3] -> [bs, nv, 3]
    if vertices.shape != eye.shape:
        eye = eye[:, None, :]
    vertices = vertices - eye
    vertices = torch.matmul(vertices, r.transpose(1,2))

    return vertices


# ---- driver (not from the repository) ---------------------------------------------------------

if __name__ == "__main__":
	import math

	torch.manual_seed(0)
	vertices = torch.rand(2, 4, 3)
	if torch.cuda.is_available():
		vertices = vertices.cuda()
	eye = [0, 0, -(1. / math.tan(math.radians(30)) + 1)]
	print("default camera", tuple(look_at(vertices, eye).shape))
	up = torch.tensor([0., 1., 0.])
	print("tensor up", tuple(look_at(vertices, eye, up=up).shape))
