/* The PowerShell fallback: when gputaskman.exe cannot be placed or run, this
 * script, given to powershell.exe as -EncodedCommand, prints the same
 * protocol-1 lines (docs/wsl.md) from Get-Counter. It has never run here (no
 * Windows): docs/validation.md says so. Get-Counter needs about a second per
 * sample and PowerShell about 2.5 s to start (the original's measurement), so
 * the first sample comes late and the live view shows "starting" meanwhile. */
#include "wsl_helper.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

/* __MS__ is replaced by the interval. Instances are read per counter in the
 * order Get-Counter returns them (PDH's); vmwp.exe's, one per guest context,
 * are kept in that order per adapter; a '#n' suffix PDH adds to repeated
 * names is dropped. Values are bytes. A sample whose Status (PDH's CStatus)
 * is not 0 (PDH_CSTATUS_VALID_DATA), or that has no value, is '-' (N/A), never
 * 0; a value missing from a counter's list is '-' too (F, G), never "key=",
 * which the parser refuses with the whole line. Engine loads are kept per
 * PID and adapter (pid|luid|type): a process on two adapters gets each its
 * own. */
static const char script_text[] =
	"$ErrorActionPreference='SilentlyContinue'\n"
	"$ms=__MS__; $seq=0\n"
	"$mc=@('Local Usage','Non Local Usage','Total Committed')\n"
	"$paths=@($mc|%{\"\\GPU Process Memory(*)\\$_\"})+@('\\GPU Adapter Memory(*)\\Dedicated Usage',"
	"'\\GPU Adapter Memory(*)\\Shared Usage','\\GPU Adapter Memory(*)\\Total Committed',"
	"'\\GPU Engine(*)\\Utilization Percentage')\n"
	"function E([string]$s){[uri]::EscapeDataString($s)}\n"
	"function F($x){if($null -eq $x){'-'}else{$x}}\n"
	"function G($m,$n,$j){if($null -eq $m[$n] -or $j -ge $m[$n].Count){'-'}else{F $m[$n][$j]}}\n"
	"while($true){\n"
	" $seq++; $t0=[Environment]::TickCount\n"
	" $ss=(Get-Counter -Counter $paths -ErrorAction SilentlyContinue).CounterSamples\n"
	" $vm=@(Get-Process -Name vmwp -ErrorAction SilentlyContinue)\n"
	" if(-not $ss){[Console]::Out.WriteLine(\"GTMH1 seq=$seq vmwp=0 vms=$($vm.Count) state=error why=\"+(E 'no GPU performance counters'))}\n"
	" else{\n"
	"  $p=@{}; $ord=New-Object System.Collections.ArrayList; $ad=@{}; $en=@{}\n"
	"  foreach($s in $ss){\n"
	"   $i=$s.InstanceName -replace '#\\d+$',''; $c=($s.Path -split '\\\\')[-1]\n"
	"   $ok=($s.Status -eq 0) -and ($null -ne $s.CookedValue); $d=$null; $v='-'\n"
	"   if($ok){$d=[math]::Max(0,[double]$s.CookedValue); $v=[uint64]$d}\n"
	"   if($s.Path -match 'gpu process memory' -and $i -match '^pid_(\\d+)_luid_(0x[0-9a-f]{8}_0x[0-9a-f]{8})'){\n"
	"    $k=\"$($matches[1])|$($matches[2])\"; if($null -eq $p[$k]){$p[$k]=@{}; [void]$ord.Add($k)}\n"
	"    if($null -eq $p[$k][$c]){$p[$k][$c]=New-Object System.Collections.ArrayList}; [void]$p[$k][$c].Add($v)}\n"
	"   elseif($s.Path -match 'gpu adapter memory' -and $i -match '^luid_(0x[0-9a-f]{8}_0x[0-9a-f]{8})'){\n"
	"    if($null -eq $ad[$matches[1]]){$ad[$matches[1]]=@{}}; $ad[$matches[1]][$c]=$v}\n"
	"   elseif($ok -and $i -match '^pid_(\\d+)_luid_(0x[0-9a-f]{8}_0x[0-9a-f]{8})_.*_engtype_(.+)$'){\n"
	"    $k=\"$($matches[1])|$($matches[2])|$($matches[3])\"; if($null -eq $en[$k] -or $en[$k] -lt $d){$en[$k]=$d}}}\n"
	"  $vp=0; foreach($x in $vm){foreach($k in $ord){if($k.StartsWith(\"$($x.Id)|\")){$vp=$x.Id}}}\n"
	"  $l=\"GTMH1 seq=$seq vmwp=$vp vms=$($vm.Count) state=ok\"\n"
	"  foreach($a in $ad.Keys){$g=$ad[$a]; $l+=\";A luid=$a ded=$(F $g['dedicated usage']) shared=$(F $g['shared usage']) committed=$(F $g['total committed'])\"}\n"
	"  foreach($k in $ord){$pid_,$lu=$k -split '\\|'; $m=$p[$k]\n"
	"   $n=($mc|%{$m[$_].Count}|Measure-Object -Maximum).Maximum\n"
	"   if([int]$pid_ -eq $vp){for($j=0;$j -lt $n;$j++){$l+=\";V luid=$lu local=$(G $m 'local usage' $j) nonlocal=$(G $m 'non local usage' $j) committed=$(G $m 'total committed' $j)\"}}\n"
	"   else{$nm=(Get-Process -Id $pid_ -ErrorAction SilentlyContinue).ProcessName; if(-not $nm){$nm='?'}\n"
	"    $eg=($en.Keys|?{$_.StartsWith(\"$k|\")}|Sort-Object {$en[$_]} -Descending|%{\"$(E ($_ -split '\\|',3)[2]):$([math]::Round($en[$_],1))\"}) -join ','\n"
	"    $l+=\";P pid=$pid_ name=$(E \"$nm.exe\") luid=$lu local=$(G $m 'local usage' 0) nonlocal=$(G $m 'non local usage' 0) committed=$(G $m 'total committed' 0)\"\n"
	"    if($eg){$l+=\" eng=$eg\"}}}\n"
	"  [Console]::Out.WriteLine($l)}\n"
	" [Console]::Out.Flush()\n"
	" $w=$ms-([Environment]::TickCount-$t0); if($w -gt 0){Start-Sleep -Milliseconds $w}\n"
	"}\n";

char *wsl_ps_script(unsigned interval_ms)
{
	const char *mark = strstr(script_text, "__MS__");
	size_t head = (size_t)(mark - script_text), cap = sizeof script_text + 16;
	char *out = xmalloc(cap);

	snprintf(out, cap, "%.*s%u%s", (int)head, script_text, interval_ms, mark + 6);
	return out;
}

/* -EncodedCommand: base64 of the script's UTF-16LE (the script is ASCII). */
char *wsl_ps_encode(const char *script)
{
	static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t n = strlen(script) * 2, w = 0;
	char *out = xmalloc(n / 3 * 4 + 8);

	for (size_t i = 0; i < n; i += 3) {
		unsigned char b[3] = {0, 0, 0};
		size_t k;
		for (k = 0; k < 3 && i + k < n; k++)
			b[k] = (i + k) % 2 ? 0 : (unsigned char)script[(i + k) / 2];
		out[w++] = b64[b[0] >> 2];
		out[w++] = b64[((b[0] & 3) << 4) | (b[1] >> 4)];
		out[w++] = k > 1 ? b64[((b[1] & 15) << 2) | (b[2] >> 6)] : '=';
		out[w++] = k > 2 ? b64[b[2] & 63] : '=';
	}
	out[w] = '\0';
	return out;
}
