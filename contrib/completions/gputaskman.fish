# fish completion for gputaskman (and its alias gtm): the flags of each
# command's --help (tests/e2e/cli/completions.sh checks that); --gpu offers
# the indices `gputaskman --list-gpus` prints at completion time.
function __gputaskman_gpus
    gputaskman --list-gpus 2>/dev/null | string match -r '^\s*\d+(?= )' | string trim
end
set -l cmds inspect diff record replay serve
for c in gputaskman gtm
    complete -c $c -n "not __fish_seen_subcommand_from $cmds" -a "$cmds"
    complete -c $c -n "not __fish_seen_subcommand_from $cmds" -l once -d 'print one text snapshot and exit'
    complete -c $c -n "not __fish_seen_subcommand_from $cmds" -l json -d 'print one JSON snapshot and exit'
    complete -c $c -n "not __fish_seen_subcommand_from $cmds" -s a -l all -d 'list every process'
    complete -c $c -n "not __fish_seen_subcommand_from $cmds" -s i -x -d 'refresh interval (seconds)'
    complete -c $c -n "not __fish_seen_subcommand_from $cmds" -l gpu -x -a '(__gputaskman_gpus)' -d 'show only GPU N'
    complete -c $c -n "not __fish_seen_subcommand_from $cmds" -l list-gpus -d 'list GPUs'
    complete -c $c -n "not __fish_seen_subcommand_from $cmds" -l no-probe -d 'never query local AI servers'
    complete -c $c -n "not __fish_seen_subcommand_from $cmds" -l no-host -d 'under WSL2, start no Windows helper'
    complete -c $c -n "not __fish_seen_subcommand_from $cmds" -l trace-opens -d 'also name model files opened and closed (Linux, root)'
    complete -c $c -n "not __fish_seen_subcommand_from $cmds" -l trace-wait -x -d 'with --once: seconds to trace first'
    complete -c $c -n "not __fish_seen_subcommand_from $cmds" -l record -r -d 'record what the live view shows'
    complete -c $c -n "not __fish_seen_subcommand_from $cmds" -s V -l version -d 'print the version, commit, parts and libraries'
    complete -c $c -s h -l help -d 'this help'
    complete -c $c -n "__fish_seen_subcommand_from inspect" -l json -d 'one JSON object instead of text'
    complete -c $c -n "__fish_seen_subcommand_from inspect" -l no-probe -d 'never query the local HTTP API'
    complete -c $c -n "__fish_seen_subcommand_from inspect" -l gpus -x -d 'plan on devices of these free sizes (24GiB,8GiB)'
    complete -c $c -n "__fish_seen_subcommand_from inspect" -l trace-opens -d 'inspect PID: also name model files it opens (root)'
    complete -c $c -n "__fish_seen_subcommand_from inspect" -l trace-wait -x -d 'seconds to trace'
    complete -c $c -n "__fish_seen_subcommand_from diff" -l json -d 'the comparison as JSON'
    complete -c $c -n "__fish_seen_subcommand_from diff" -l all -d 'also small moves'
    complete -c $c -n "__fish_seen_subcommand_from diff" -l force -d 'snapshots of different machines'
    complete -c $c -n "__fish_seen_subcommand_from record" -s i -x -d 'interval (seconds)'
    complete -c $c -n "__fish_seen_subcommand_from record" -s o -r -d 'the recording'
    complete -c $c -n "__fish_seen_subcommand_from record" -l max-size -x -d 'keep the file under SIZE'
    complete -c $c -n "__fish_seen_subcommand_from record" -l count -x -d 'stop after N snapshots'
    complete -c $c -n "__fish_seen_subcommand_from record" -l frame-seconds -x -d 'seconds per compressed frame'
    complete -c $c -n "__fish_seen_subcommand_from record" -l gpu -x -a '(__gputaskman_gpus)' -d 'record only GPU N'
    complete -c $c -n "__fish_seen_subcommand_from record" -l no-probe -d 'never query local AI servers'
    complete -c $c -n "__fish_seen_subcommand_from replay" -l at -x -d 'the snapshot at TIME'
    complete -c $c -n "__fish_seen_subcommand_from replay" -l json -d 'print that snapshot'
    complete -c $c -n "__fish_seen_subcommand_from serve" -l listen -x -d 'where to listen (ADDR:PORT)'
    complete -c $c -n "__fish_seen_subcommand_from serve" -s i -x -d 'collection interval (seconds)'
    complete -c $c -n "__fish_seen_subcommand_from serve" -l max-processes -x -d 'processes with their own series'
    complete -c $c -n "__fish_seen_subcommand_from serve" -l no-probe -d 'never query local AI servers'
    complete -c $c -n "__fish_seen_subcommand_from serve" -l record -r -F -d 'also record every collection'
    complete -c $c -n "__fish_seen_subcommand_from serve" -l trace-opens -d 'also name model files opened and closed (root)'
end
