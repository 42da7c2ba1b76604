/* Embedded C: c_decl, c_state (a Global and a Local one, with an initial value), c_track
   (Matched: the tracked memory is part of the state; UnMatched: it is restored on
   backtracking but not compared), c_code with and without a [precondition], c_expr in a guard
   and in an assert.  The front end keeps these blocks opaque.

   The counter counts pos.x from 1 to 4 in C.  Steps: the first c_code, 3 times the c_expr
   guard and the c_code of the loop, else, the guarded c_code, two asserts, and the death of
   the process: 12 steps, all to new states (pos.x, k and the pc differ), so 13 states and
   13 transitions (pan counts the initial state as one).  Checked with plain spin 6.5.2.

   pids: counter
   expect: flags=-DNOREDUCE states=13 transitions=13 errors=0
   expect: states=13 transitions=13 errors=0
*/
c_decl {
	typedef struct Coord {
		int x, y;
	} Coord;
	int calls;              /* tracked, not matched */
	short history[4];       /* tracked and matched */
}

c_state "Coord pos" "Global"
c_state "int seen" "Local counter" "7"
c_track "&calls" "sizeof(int)" "UnMatched"
c_track "history" "sizeof(history)" "Matched"

int n;

active proctype counter()
{
	byte k;
	c_code { now.pos.x = 1; now.pos.y = -1; };
	do
	:: c_expr { now.pos.x < 4 } ->
		c_code {
			history[now.pos.x] = now.pos.x * 10;
			now.pos.x++;
			calls++;
			Pcounter->k = now.pos.x;
			Pcounter->seen = Pcounter->seen + 1;
		}
	:: else -> break
	od;
	c_code [now.pos.x == 4 && Pcounter->k == 4] { now.n = now.pos.x * 2; };
	assert(n == 8 && k == 4);
	assert(c_expr { Pcounter->seen == 10 && history[3] == 30 && now.pos.y == -1 })
}
