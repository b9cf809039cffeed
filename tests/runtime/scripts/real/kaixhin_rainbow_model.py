"""Kaixhin/Rainbow, model.py: the Rainbow DQN with its factorised noisy linear layers.

Source: https://github.com/Kaixhin/Rainbow/blob/1745b184c3dfc03d4ffa3ce2342ced9996b39a60/model.py
(all 85 lines, verbatim). License: MIT, Copyright (c) 2017 Kai Arulkumaran (LICENSE.md at that commit).
The lint corpus labels the file clean: NoisyLinear keeps its noise as registered buffers
(``weight_epsilon``, ``bias_epsilon``), which ``.to(device)`` moves.

Driver (below the separator): what main.py and agent.py at that commit do with it, with main.py's
default hyper-parameters (canonical architecture, history length 4, hidden size 512, noisy std 0.1,
51 atoms on [-10, 10], Adam lr 0.0000625 eps 1.5e-4, batch 32) and 6 actions: ``args.device`` is cuda
when available, ``DQN(args, action_space).to(device=args.device)``, the value support made by
``torch.linspace(...).to(device=args.device)``, one action as ``Agent.act`` picks it on a random
4x84x84 state, then one optimiser step on a batch of 32 random states (the loss is the mean log
probability of the chosen actions' first atom, a stand-in for the agent's projected distribution).
"""
# ruff: noqa
# fmt: off

# -*- coding: utf-8 -*-
from __future__ import division
import math
import torch
from torch import nn
from torch.nn import functional as F


# Factorised NoisyLinear layer with bias
class NoisyLinear(nn.Module):
  def __init__(self, in_features, out_features, std_init=0.5):
    super(NoisyLinear, self).__init__()
    self.in_features = in_features
    self.out_features = out_features
    self.std_init = std_init
    self.weight_mu = nn.Parameter(torch.empty(out_features, in_features))
    self.weight_sigma = nn.Parameter(torch.empty(out_features, in_features))
    self.register_buffer('weight_epsilon', torch.empty(out_features, in_features))
    self.bias_mu = nn.Parameter(torch.empty(out_features))
    self.bias_sigma = nn.Parameter(torch.empty(out_features))
    self.register_buffer('bias_epsilon', torch.empty(out_features))
    self.reset_parameters()
    self.reset_noise()

  def reset_parameters(self):
    mu_range = 1 / math.sqrt(self.in_features)
    self.weight_mu.data.uniform_(-mu_range, mu_range)
    self.weight_sigma.data.fill_(self.std_init / math.sqrt(self.in_features))
    self.bias_mu.data.uniform_(-mu_range, mu_range)
    self.bias_sigma.data.fill_(self.std_init / math.sqrt(self.out_features))

  def _scale_noise(self, size):
    x = torch.randn(size, device=self.weight_mu.device)
    return x.sign().mul_(x.abs().sqrt_())

  def reset_noise(self):
    epsilon_in = self._scale_noise(self.in_features)
    epsilon_out = self._scale_noise(self.out_features)
    self.weight_epsilon.copy_(epsilon_out.ger(epsilon_in))
    self.bias_epsilon.copy_(epsilon_out)

  def forward(self, input):
    if self.training:
      return F.linear(input, self.weight_mu + self.weight_sigma * self.weight_epsilon, self.bias_mu + self.bias_sigma * self.bias_epsilon)
    else:
      return F.linear(input, self.weight_mu, self.bias_mu)


class DQN(nn.Module):
  def __init__(self, args, action_space):
    super(DQN, self).__init__()
    self.atoms = args.atoms
    self.action_space = action_space

    if args.architecture == 'canonical':
      self.convs = nn.Sequential(nn.Conv2d(args.history_length, 32, 8, stride=4, padding=0), nn.ReLU(),
                                 nn.Conv2d(32, 64, 4, stride=2, padding=0), nn.ReLU(),
                                 nn.Conv2d(64, 64, 3, stride=1, padding=0), nn.ReLU())
      self.conv_output_size = 3136
    elif args.architecture == 'data-efficient':
      self.convs = nn.Sequential(nn.Conv2d(args.history_length, 32, 5, stride=5, padding=0), nn.ReLU(),
                                 nn.Conv2d(32, 64, 5, stride=5, padding=0), nn.ReLU())
      self.conv_output_size = 576
    self.fc_h_v = NoisyLinear(self.conv_output_size, args.hidden_size, std_init=args.noisy_std)
    self.fc_h_a = NoisyLinear(self.conv_output_size, args.hidden_size, std_init=args.noisy_std)
    self.fc_z_v = NoisyLinear(args.hidden_size, self.atoms, std_init=args.noisy_std)
    self.fc_z_a = NoisyLinear(args.hidden_size, action_space * self.atoms, std_init=args.noisy_std)

  def forward(self, x, log=False):
    x = self.convs(x)
    x = x.view(-1, self.conv_output_size)
    v = self.fc_z_v(F.relu(self.fc_h_v(x)))  # Value stream
    a = self.fc_z_a(F.relu(self.fc_h_a(x)))  # Advantage stream
    v, a = v.view(-1, 1, self.atoms), a.view(-1, self.action_space, self.atoms)
    q = v + a - a.mean(1, keepdim=True)  # Combine streams
    if log:  # Use log softmax for numerical stability
      q = F.log_softmax(q, dim=2)  # Log probabilities with action over second dimension
    else:
      q = F.softmax(q, dim=2)  # Probabilities with action over second dimension
    return q

  def reset_noise(self):
    for name, module in self.named_children():
      if 'fc' in name:
        module.reset_noise()


# ---- driver (not from the repository) ---------------------------------------------------------

if __name__ == "__main__":
  import argparse

  args = argparse.Namespace(architecture='canonical', history_length=4, hidden_size=512, noisy_std=0.1,
                            atoms=51, V_min=-10, V_max=10, learning_rate=0.0000625, adam_eps=1.5e-4,
                            batch_size=32)
  torch.manual_seed(123)
  if torch.cuda.is_available():
    args.device = torch.device('cuda')
  else:
    args.device = torch.device('cpu')
  action_space = 6
  support = torch.linspace(args.V_min, args.V_max, args.atoms).to(device=args.device)
  online_net = DQN(args, action_space).to(device=args.device)
  online_net.train()
  optimiser = torch.optim.Adam(online_net.parameters(), lr=args.learning_rate, eps=args.adam_eps)

  state = torch.rand(4, 84, 84, device=args.device)
  with torch.no_grad():
    action = (online_net(state.unsqueeze(0)) * support).sum(2).argmax(1).item()
  print('action', action)

  states = torch.rand(args.batch_size, 4, 84, 84, device=args.device)
  actions = torch.randint(0, action_space, (args.batch_size,), device=args.device)
  log_ps = online_net(states, log=True)
  log_ps_a = log_ps[range(args.batch_size), actions]
  loss = -log_ps_a[:, 0].mean()
  online_net.zero_grad()
  loss.backward()
  optimiser.step()
  online_net.reset_noise()
  print('loss %.6f' % loss.item())
