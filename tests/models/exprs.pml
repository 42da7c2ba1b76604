/* Expressions: + - * / %, unary minus, !, ~, & | ^, << >>, comparisons, && ||, the
   conditional expression (c -> a : b) (nested), ++ and --, character constants, true/false,
   several declarators with initialisers in one declaration, precedence as in spin.y, and
   truncation on assignment.

   One process runs 19 statements of straight-line code on globals, so nothing is merged:
   19 + 1 locations + the empty system after the process died = 21 states and 21
   transitions (pan counts the initial state as one).  The asserts check the values.

   pids: :init:
   expect: flags=-DNOREDUCE states=21 transitions=21 errors=0
*/
int a = 7, b = -3;
byte u = 200;
bool t = true, f;
short s;

init {
	assert(a + b == 4 && a - b == 10 && a * b == -21 && a / 2 == 3 && a % 3 == 1);
	assert(-a == -7 && - -a == 7 && -(a + b) == -4 && b / 2 == -1 && b % 2 == -1);
	assert((a & 3) == 3 && (a | 8) == 15 && (a ^ 5) == 2 && ~a == -8 && (u & ~15) == 192);
	assert((a << 2) == 28 && (u >> 3) == 25 && (1 << 30) > 0 && (b >> 1) == -2);
	assert(a > b && b < a && a >= 7 && b <= -3 && a != b && !(a == b) && !(!a));
	assert((t || f) && !(t && f) && !f && (f -> false : true));
	assert(1 + 2 * 3 == 7 && (1 + 2) * 3 == 9 && 10 - 4 - 3 == 3 && 2 * 3 % 4 == 2);
	assert((1 | 2 ^ 3 & 4) == 3 && (a > 0 && b < 0 || f) && (1 << 2 + 1) == 8);
	assert((a < b == f) && (1 + 1 << 1) == 4 && (a & 1 == 1) == 1);
	s = (a > b -> a : b);
	s = (s == 7 -> (b < 0 -> 100 : 200) : 300);
	assert(s == 100);
	a++;
	b--;
	u++;
	s--;
	assert(a == 8 && b == -4 && u == 201 && s == 99);
	u = a * 40;                         /* 320 does not fit in a byte: 64 */
	assert(u == 64 && 'A' == 65 && true == 1 && false == 0 && t + t == 2)
}
