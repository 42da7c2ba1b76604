/* expect: error line=8 message="syntax error" */
byte x;

active proctype P()
{
	do
	:: x < 3 -> x++
	:: x == 3 -> x = * 2; x = 0
	od
}
