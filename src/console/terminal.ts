// Terminal control sequences the console writes around its run (xterm's; tmux and every common terminal honour them).

/** Switch to the alternate screen buffer (saving the cursor): the console draws there. */
export const ALT_SCREEN_ON = "\u001B[?1049h";
/** Back to the normal screen: what the terminal showed before the console, with no frame left behind. */
export const ALT_SCREEN_OFF = "\u001B[?1049l";
