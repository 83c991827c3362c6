"""`perfguard site`: a static history site (see guard/site/build.py)."""
