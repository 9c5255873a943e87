"""Test support: local servers speaking the providers' wire protocols, scripted per test."""
