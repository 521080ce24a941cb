"""The order-preference LP: ``problem`` builds it as arrays, ``highs`` (the only importer of
highspy) solves it, ``engine`` certifies solutions and handles warm re-solves."""
