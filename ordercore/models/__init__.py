"""What the model families share: the registry of families (``registry``) and their model files
(``files``: save and load)."""
