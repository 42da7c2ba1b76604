/* expect: error line=7 message="undeclared variable" */
byte x;

active proctype P()
{
	x = 1;
	y = x + 1
}
