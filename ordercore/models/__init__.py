"""What the model families share: their model files (save and load)."""
