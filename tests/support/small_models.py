"""Small Promela models shared by the pan and verify tests."""

# 2N+3 states in a line: (n, loop head) and (n, after the guard) for n < N, then for n = N the
# loop head, the end state and the state after the process has died.
COUNTER = """
short n;
active proctype Counter() {
	do
	:: n < {N} -> n++
	:: else -> break
	od
}
"""

ASSERTION = """
byte x;
active proctype A() { x = 1; x = 2 }
active proctype B() { assert(x != 2) }
"""
