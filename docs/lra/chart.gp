# chart.svg and chart.png, written by attnzoo; rerun with `gnuplot chart.gp` in this folder.
$f0 << EOD
"full" 0.5963 61.93 7
EOD
$f1 << EOD
"bigbird" 4.6727 62.4325 1.97752
"global" 12.2336 59.3575 1.30826
"local" 9.2707 62.5575 1.4855
"longformer" 8.2936 62.3425 1.51269
"strided" 10.3146 61.84 1.38866
EOD
$f2 << EOD
"compressed" 2.085 63.4925 1.359
"efficient" 14.1711 62.5925 1.34935
"linear" 12.6871 61.19 1.35617
"linformer" 4.826 64.3675 1.61257
"performer" 8.9032 61.995 1.61924
"rfa" 6.135 61.5775 1.97596
"synthesizer" 0.6516 58.6275 1.40736
EOD
$f3 << EOD
"fnet" 23.2827 59.8825 1.0945
"gmlp" 0.7907 62.7775 3.20434
"mixer" 20.4898 61.9175 1.15
EOD
$f4 << EOD
"reformer" 3.2462 60.1 1.69078
"routing" 5.3561 62.66 1.36352
"sinkhorn" 6.91 62.765 1.58128
EOD

set terminal svg size 1100,650 dynamic noenhanced font 'Helvetica,13' background rgb 'white'
set output 'chart.svg'
set title "Long Range Arena on this CPU (preset mini)"
set xlabel "training steps/s at 4096 tokens (attnzoo bench, batch 2, 2 layer(s), dim 64), log scale"
set ylabel "average test accuracy (%): ListOps, Text, Image, Pathfinder"
set grid
set key outside right top title "family (bubble area: peak memory at 4K)"
set logscale x
set xrange [0.331278:41.9089]
set yrange [33.2175:67.705]
set xtics ("0.5" 0.5, "1" 1, "2" 2, "5" 5, "10" 10, "20" 20)
set label 1 "full" at 0.5963,61.93 center offset char 0,2.31429 front
set label 2 "bigbird" at 4.6727,62.4325 center offset char 0,1.16629 front
set label 3 "compressed" at 2.085,63.4925 center offset char 0,1.02491 front
set label 4 "efficient" at 14.1711,62.5925 center offset char 0,1.02271 front
set label 5 "fnet" at 23.2827,59.8825 center offset char 0,0.964458 front
set label 6 "global" at 12.2336,59.3575 center offset char 0,1.01332 front
set label 7 "gmlp" at 0.7907,62.7775 center offset char 0,1.44671 front
set label 8 "linear" at 12.6871,61.19 center offset char 4.19139,0 front
set label 9 "linformer" at 4.826,64.3675 center offset char 0,1.08287 front
set label 10 "local" at 9.2707,62.5575 center offset char 0,1.05383 front
set label 11 "longformer" at 8.2936,62.3425 center offset char 0,-2.06004 front
set label 12 "mixer" at 20.4898,61.9175 center offset char 0,0.977142 front
set label 13 "performer" at 8.9032,61.995 center offset char 0,3.0844 front
set label 14 "reformer" at 3.2462,60.1 center offset char 0,1.10075 front
set label 15 "rfa" at 6.135,61.5775 center offset char 0,1.16593 front
set label 16 "routing" at 5.3561,62.66 center offset char 4.69475,1.02595 front
set label 17 "sinkhorn" at 6.91,62.765 center offset char 0,3.07572 front
set label 18 "strided" at 10.3146,61.84 center offset char 0,-3.03169 front
set label 19 "synthesizer" at 0.6516,58.6275 center offset char 0,1.03597 front
set arrow from graph 0, first 36.555 to graph 1, first 36.555 nohead dt 2 lc rgb '#888888'
set label 20 'chance (majority class)' at graph 0.01, first 36.555 offset 0,0.6 left textcolor rgb '#888888'
plot $f0 using 2:3:4 with points pt 7 ps variable lc rgb '#701f77b4' title "dense", $f0 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#1f77b4' notitle, \
     $f1 using 2:3:4 with points pt 7 ps variable lc rgb '#702ca02c' title "fixed", $f1 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#2ca02c' notitle, \
     $f2 using 2:3:4 with points pt 7 ps variable lc rgb '#709467bd' title "low-rank/kernel", $f2 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#9467bd' notitle, \
     $f3 using 2:3:4 with points pt 7 ps variable lc rgb '#708c564b' title "attention-free", $f3 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#8c564b' notitle, \
     $f4 using 2:3:4 with points pt 7 ps variable lc rgb '#70ff7f0e' title "learned", $f4 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#ff7f0e' notitle

unset output
set terminal pngcairo size 1100,650 noenhanced font 'Helvetica,11' background rgb 'white'
set output 'chart.png'
set title "Long Range Arena on this CPU (preset mini)"
set xlabel "training steps/s at 4096 tokens (attnzoo bench, batch 2, 2 layer(s), dim 64), log scale"
set ylabel "average test accuracy (%): ListOps, Text, Image, Pathfinder"
set grid
set key outside right top title "family (bubble area: peak memory at 4K)"
set logscale x
set xrange [0.331278:41.9089]
set yrange [33.2175:67.705]
set xtics ("0.5" 0.5, "1" 1, "2" 2, "5" 5, "10" 10, "20" 20)
set label 1 "full" at 0.5963,61.93 center offset char 0,2.31429 front
set label 2 "bigbird" at 4.6727,62.4325 center offset char 0,1.16629 front
set label 3 "compressed" at 2.085,63.4925 center offset char 0,1.02491 front
set label 4 "efficient" at 14.1711,62.5925 center offset char 0,1.02271 front
set label 5 "fnet" at 23.2827,59.8825 center offset char 0,0.964458 front
set label 6 "global" at 12.2336,59.3575 center offset char 0,1.01332 front
set label 7 "gmlp" at 0.7907,62.7775 center offset char 0,1.44671 front
set label 8 "linear" at 12.6871,61.19 center offset char 4.19139,0 front
set label 9 "linformer" at 4.826,64.3675 center offset char 0,1.08287 front
set label 10 "local" at 9.2707,62.5575 center offset char 0,1.05383 front
set label 11 "longformer" at 8.2936,62.3425 center offset char 0,-2.06004 front
set label 12 "mixer" at 20.4898,61.9175 center offset char 0,0.977142 front
set label 13 "performer" at 8.9032,61.995 center offset char 0,3.0844 front
set label 14 "reformer" at 3.2462,60.1 center offset char 0,1.10075 front
set label 15 "rfa" at 6.135,61.5775 center offset char 0,1.16593 front
set label 16 "routing" at 5.3561,62.66 center offset char 4.69475,1.02595 front
set label 17 "sinkhorn" at 6.91,62.765 center offset char 0,3.07572 front
set label 18 "strided" at 10.3146,61.84 center offset char 0,-3.03169 front
set label 19 "synthesizer" at 0.6516,58.6275 center offset char 0,1.03597 front
set arrow from graph 0, first 36.555 to graph 1, first 36.555 nohead dt 2 lc rgb '#888888'
set label 20 'chance (majority class)' at graph 0.01, first 36.555 offset 0,0.6 left textcolor rgb '#888888'
plot $f0 using 2:3:4 with points pt 7 ps variable lc rgb '#701f77b4' title "dense", $f0 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#1f77b4' notitle, \
     $f1 using 2:3:4 with points pt 7 ps variable lc rgb '#702ca02c' title "fixed", $f1 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#2ca02c' notitle, \
     $f2 using 2:3:4 with points pt 7 ps variable lc rgb '#709467bd' title "low-rank/kernel", $f2 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#9467bd' notitle, \
     $f3 using 2:3:4 with points pt 7 ps variable lc rgb '#708c564b' title "attention-free", $f3 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#8c564b' notitle, \
     $f4 using 2:3:4 with points pt 7 ps variable lc rgb '#70ff7f0e' title "learned", $f4 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#ff7f0e' notitle

unset output
