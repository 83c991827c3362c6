"""Drain a list from the front (O(n^2)) or a deque (O(n)): hyperfine's command in README.md."""

import sys
from collections import deque

kind, n = sys.argv[1], int(sys.argv[2])
if kind == "list":
    items = list(range(n))
    while items:
        items.pop(0)
else:
    items = deque(range(n))
    while items:
        items.popleft()
