"""Where packages come from: source strings (`spec`), git mirrors (`git`), fetched folders."""
