"""What a person sees: rich views, progress, help text, the generated CLI docs and the JSON
documents `uze.cli` prints."""
