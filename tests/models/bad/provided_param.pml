/* expect: error line=4 message="provided" */
byte turn;

proctype B(byte id) provided (turn == id)
{
	turn++
}

init { run B(0) }
