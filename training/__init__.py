"""Self-play training for rams_env (imports rams_env, never the reverse)."""
