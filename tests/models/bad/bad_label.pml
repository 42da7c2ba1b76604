/* expect: error line=6 message="nowhere" */
byte x;

active proctype P()
{
	x == 0 -> goto nowhere
}
