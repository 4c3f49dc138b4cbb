"""The install pipeline's pieces that are not a command: the re-install shortcut and the result it
returns."""
