/* expect: error line=6 message="syntax error" */
bool a = true;

init {
	/* `!!` is the sorted-send operator to spin's lexer, never a double negation */
	assert(!!a)
}
