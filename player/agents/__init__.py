"""Agents: baselines and players behind the one interface of ``player.agents.base``."""
from player.agents.base import Agent

__all__ = ["Agent"]
