"""What uze keeps about a scope: its context (receipts folder, journal, lock), receipts, consent
and the status digest cache."""
