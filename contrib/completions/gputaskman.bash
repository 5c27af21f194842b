# bash completion for gputaskman (and its alias gtm). The flags are those of
# each command's --help (tests/e2e/cli/completions.sh checks that); --gpu
# offers the indices `gputaskman --list-gpus` prints at completion time.
_gputaskman_gpus()
{
	"$1" --list-gpus 2>/dev/null | sed -n 's/^ *\([0-9][0-9]*\) .*/\1/p'
}

_gputaskman()
{
	local cur prev cmd words
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}
	cmd=
	[ "$COMP_CWORD" -gt 1 ] && cmd=${COMP_WORDS[1]}
	case $prev in
	--gpu)
		COMPREPLY=($(compgen -W "$(_gputaskman_gpus "${COMP_WORDS[0]}")" -- "$cur"))
		return;;
	-i|--interval|--max-size|--count|--frame-seconds|--listen|--max-processes|--at)
		COMPREPLY=()
		return;;
	-o|--record)
		COMPREPLY=($(compgen -f -- "$cur"))
		return;;
	esac
	case $cmd in
	inspect) words="--json --no-probe --gpus --trace-opens --trace-wait -h --help --";;
	diff) words="--json --all --force -h --help --";;
	record) words="-i -o --max-size --count --frame-seconds --gpu --no-probe -h --help";;
	replay) words="--at --json -h --help";;
	serve) words="--listen -i --max-processes --no-probe --record --trace-opens -h --help";;
	*) words="--once --json -a --all -i --gpu --list-gpus --no-probe --no-host --record --trace-opens --trace-wait -V --version -h --help"
	   [ "$COMP_CWORD" -eq 1 ] && words="$words inspect diff record replay serve";;
	esac
	case $cur in
	-*) COMPREPLY=($(compgen -W "$words" -- "$cur"));;
	*) COMPREPLY=($(compgen -W "$words" -- "$cur") $(compgen -f -- "$cur"));;
	esac
}
complete -F _gputaskman gputaskman gtm
