/* Data types: mtype and a named mtype (mtype:fruit), typedefs (nested, with arrays in them),
   arrays, `unsigned x : 3`, bit/bool/byte/short/int/pid/chan, and the hidden/show/local
   prefixes.

   One process runs straight-line code; every statement touches a global, so none is merged
   and each is one step: 22 statements give 22 + 1 locations + the empty system after the
   process died = 24 states, and 24 transitions (pan counts the initial state as one).
   With one process, partial order reduction changes nothing.  The hidden variable is not
   in the state vector, so its assignment makes a new state only because the program
   counter moves.

   pids: :init:
   expect: flags=-DNOREDUCE states=24 transitions=24 errors=0
   expect: states=24 transitions=24 errors=0
*/
mtype = { red, green, blue };
mtype:fruit = { apple, pear, plum };

typedef Point {
	byte x;
	byte y
};

typedef Shape {
	Point corner[2];            /* a typedef inside a typedef, as an array */
	mtype colour = green;
	bit flags[3];
	unsigned kind : 3
};

Shape shapes[2];
unsigned u : 3 = 6;
bit b;
bool ok = true;
byte by = 250;
short sh = -300;
int in = 100000;
pid who;
chan c = [2] of { byte, mtype, mtype:fruit };
hidden byte scratch;
show byte shown;
local byte mine;
mtype:fruit fr = pear;
byte grid[4] = 7;

init {
	mtype m;
	mtype:fruit f;
	u++;
	u++;                                        /* 3 bits: 7 + 1 wraps to 0 */
	assert(u == 0 && shapes[1].colour == green && grid[3] == 7);
	shapes[1].corner[1].x = 3;
	shapes[1].corner[0].y = shapes[1].corner[1].x + 1;
	shapes[0].flags[2] = 1;
	shapes[0].kind = 13;                        /* truncated to 3 bits: 5 */
	assert(shapes[0].kind == 5 && shapes[1].corner[0].y == 4 && shapes[0].flags[2]);
	by = by + 10;                               /* byte wraps: 260 -> 4 */
	sh = sh * 100;                              /* -30000 fits in a short */
	in = in * 20 - 1;                           /* 1999999 needs more than 16 bits */
	assert(by == 4 && sh == -30000 && in == 1999999);
	b = !b;
	ok = b && ok;
	who = _pid;
	scratch = by;
	shown = scratch;
	mine = shown + 1;
	c!mine, blue, plum;
	c?by, m, f;
	fr = f;
	assert(b && ok && who == 0 && mine == 5 && by == 5 && m == blue && fr == plum)
}
