"""Transfers: pinned and pageable host<->device copies against what the link should carry."""
