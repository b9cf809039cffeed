"""sfujim/TD3, OurDDPG.py: the re-tuned DDPG agent, with its replay buffer, as its authors wrote them.

Source: https://github.com/sfujim/TD3/blob/10a61fa7e7b74fce5bdb1aae206a9a8951b59f25/OurDDPG.py
(all 117 lines, verbatim) and
https://github.com/sfujim/TD3/blob/10a61fa7e7b74fce5bdb1aae206a9a8951b59f25/utils.py (all 40 lines,
verbatim). License: MIT, Copyright (c) 2020 Scott Fujimoto (LICENSE at that commit). Line endings are
LF here (CRLF there); the tabs are kept. The lint corpus labels OurDDPG.py lines 22 and 23 (TDL002):
``self.min_action`` / ``self.max_action`` are plain tensor attributes of Actor, which ``.to(device)``
does not move.

Driver (below the separator): what main.py at that commit does with the agent, with the action space
of its default environment (HalfCheetah: 17 state dims, 6 action dims in [-1, 1]) and no gym: build
``DDPG(**kwargs)`` (OurDDPG.py picks ``device`` itself: cuda when available), select an action for
one state as ``eval_policy`` does first, then, from random transitions in the replay buffer (1,000
slots instead of 1e6), one ``policy.train(replay_buffer, 256)`` step.
"""
# ruff: noqa
# fmt: off

import copy
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

# Re-tuned version of Deep Deterministic Policy Gradients (DDPG)
# Paper: https://arxiv.org/abs/1509.02971


class Actor(nn.Module):
	def __init__(self, state_dim, action_dim, min_action, max_action):
		super(Actor, self).__init__()

		self.l1 = nn.Linear(state_dim, 256)
		self.l2 = nn.Linear(256, 256)
		self.l3 = nn.Linear(256, action_dim)
		
		self.min_action = torch.FloatTensor(min_action)
		self.max_action = torch.FloatTensor(max_action)

	
	def forward(self, state):
		a = F.relu(self.l1(state))
		a = F.relu(self.l2(a))
		return (self.max_action - self.min_action) * ((torch.tanh(self.l3(a)) + 1) / 2) + self.min_action


class Critic(nn.Module):
	def __init__(self, state_dim, action_dim):
		super(Critic, self).__init__()

		self.l1 = nn.Linear(state_dim + action_dim, 256)
		self.l2 = nn.Linear(256, 256)
		self.l3 = nn.Linear(256, 1)


	def forward(self, state, action):
		q = F.relu(self.l1(torch.cat([state, action], 1)))
		q = F.relu(self.l2(q))
		return self.l3(q)


class DDPG(object):
	def __init__(self, state_dim, action_dim, min_action, max_action, discount=0.99, tau=0.005):
		self.actor = Actor(state_dim, action_dim, min_action, max_action).to(device)
		self.actor_target = copy.deepcopy(self.actor)
		self.actor_optimizer = torch.optim.Adam(self.actor.parameters(), lr=3e-4)

		self.critic = Critic(state_dim, action_dim).to(device)
		self.critic_target = copy.deepcopy(self.critic)
		self.critic_optimizer = torch.optim.Adam(self.critic.parameters(), lr=3e-4)

		self.discount = discount
		self.tau = tau


	def select_action(self, state):
		state = torch.FloatTensor(state.reshape(1, -1)).to(device)
		return self.actor(state).cpu().data.numpy().flatten()


	def train(self, replay_buffer, batch_size=256):
		# Sample replay buffer 
		state, action, next_state, reward, not_done = replay_buffer.sample(batch_size)

		# Compute the target Q value
		target_Q = self.critic_target(next_state, self.actor_target(next_state))
		target_Q = reward + (not_done * self.discount * target_Q).detach()

		# Get current Q estimate
		current_Q = self.critic(state, action)

		# Compute critic loss
		critic_loss = F.mse_loss(current_Q, target_Q)

		# Optimize the critic
		self.critic_optimizer.zero_grad()
		critic_loss.backward()
		self.critic_optimizer.step()

		# Compute actor loss
		actor_loss = -self.critic(state, self.actor(state)).mean()
		
		# Optimize the actor 
		self.actor_optimizer.zero_grad()
		actor_loss.backward()
		self.actor_optimizer.step()

		# Update the frozen target models
		for param, target_param in zip(self.critic.parameters(), self.critic_target.parameters()):
			target_param.data.copy_(self.tau * param.data + (1 - self.tau) * target_param.data)

		for param, target_param in zip(self.actor.parameters(), self.actor_target.parameters()):
			target_param.data.copy_(self.tau * param.data + (1 - self.tau) * target_param.data)


	def save(self, filename):
		torch.save(self.critic.state_dict(), filename + "_critic")
		torch.save(self.critic_optimizer.state_dict(), filename + "_critic_optimizer")
		
		torch.save(self.actor.state_dict(), filename + "_actor")
		torch.save(self.actor_optimizer.state_dict(), filename + "_actor_optimizer")


	def load(self, filename):
		self.critic.load_state_dict(torch.load(filename + "_critic"))
		self.critic_optimizer.load_state_dict(torch.load(filename + "_critic_optimizer"))
		self.critic_target = copy.deepcopy(self.critic)

		self.actor.load_state_dict(torch.load(filename + "_actor"))
		self.actor_optimizer.load_state_dict(torch.load(filename + "_actor_optimizer"))
		self.actor_target = copy.deepcopy(self.actor)
		


import numpy as np
import torch


class ReplayBuffer(object):
	def __init__(self, state_dim, action_dim, max_size=int(1e6)):
		self.max_size = max_size
		self.ptr = 0
		self.size = 0

		self.state = np.zeros((max_size, state_dim))
		self.action = np.zeros((max_size, action_dim))
		self.next_state = np.zeros((max_size, state_dim))
		self.reward = np.zeros((max_size, 1))
		self.not_done = np.zeros((max_size, 1))

		self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


	def add(self, state, action, next_state, reward, done):
		self.state[self.ptr] = state
		self.action[self.ptr] = action
		self.next_state[self.ptr] = next_state
		self.reward[self.ptr] = reward
		self.not_done[self.ptr] = 1. - done

		self.ptr = (self.ptr + 1) % self.max_size
		self.size = min(self.size + 1, self.max_size)


	def sample(self, batch_size):
		ind = np.random.randint(0, self.size, size=batch_size)

		return (
			torch.FloatTensor(self.state[ind]).to(self.device),
			torch.FloatTensor(self.action[ind]).to(self.device),
			torch.FloatTensor(self.next_state[ind]).to(self.device),
			torch.FloatTensor(self.reward[ind]).to(self.device),
			torch.FloatTensor(self.not_done[ind]).to(self.device)
		)

# ---- driver (not from the repository) ---------------------------------------------------------

if __name__ == "__main__":
	torch.manual_seed(0)
	np.random.seed(0)
	state_dim, action_dim = 17, 6
	min_action = -np.ones(action_dim, dtype=np.float32)
	max_action = np.ones(action_dim, dtype=np.float32)
	kwargs = {
		"state_dim": state_dim,
		"action_dim": action_dim,
		"min_action": min_action,
		"max_action": max_action,
		"discount": 0.99,
		"tau": 0.005,
	}
	policy = DDPG(**kwargs)
	replay_buffer = ReplayBuffer(state_dim, action_dim, max_size=1000)

	# Evaluate untrained policy (eval_policy's first action)
	state = np.random.randn(state_dim)
	action = policy.select_action(np.array(state))
	print("action", action.shape, bool(((action >= -1) & (action <= 1)).all()))

	for _ in range(300):
		replay_buffer.add(np.random.randn(state_dim), np.random.uniform(-1, 1, action_dim),
			np.random.randn(state_dim), np.random.randn(), 0.0)
	policy.train(replay_buffer, 256)
	print("trained on", replay_buffer.size, "transitions")
