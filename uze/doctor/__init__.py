"""`uze doctor`'s machinery: evidence records, the compatibility claims they back, and the probes
that read what a real harness discovered."""
