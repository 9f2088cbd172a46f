# chart-pathfinder.svg and chart-pathfinder.png, written by attnzoo; rerun with `gnuplot chart-pathfinder.gp` in this folder.
$f0 << EOD
"full" 0.4228 49.6833 7 0.548483
"flash" 1.0498 50.0333 1.37625 0.057735
EOD
$f1 << EOD
"bigbird" 3.2823 50.05 2.02453 0.0866025
"global" 10.6246 50.15 1.37737 0.259808
"local" 6.6331 49.95 1.54717 0.0866025
"longformer" 6.0202 50.2833 1.57035 0.301386
"strided" 7.3174 50.2167 1.45393 0.202073
EOD
$f2 << EOD
"compressed" 2.1489 50.0167 1.42402 0.0288675
"efficient" 12.379 49.8833 1.3543 0.104083
"linear" 8.3155 50.1 1.36165 0.173205
"linformer" 3.836 50.3 1.66584 0.47697
"performer" 5.9607 50.2167 1.62235 0.202073
"rfa" 4.2156 50 1.97844 0
"synthesizer" 0.5074 49.75 1.39291 0.433013
EOD
$f3 << EOD
"fnet" 19.1207 50.1667 1.10067 0.288675
"gmlp" 0.796 49.7833 3.2061 0.292973
"mixer" 16.6036 50.2167 1.13573 0.25658
EOD
$f4 << EOD
"reformer" 2.5903 50 1.7434 0
"routing" 3.5943 49.5167 1.42833 0.425245
"sinkhorn" 5.8349 50.1833 1.63932 0.236291
EOD

set terminal svg size 1100,650 dynamic noenhanced font 'Helvetica,13' background rgb 'white'
set output 'chart-pathfinder.svg'
set title "Pathfinder on this CPU (preset mini)"
set xlabel "training steps/s at 4096 tokens (attnzoo bench, batch 2, 2 layer(s), dim 64), log scale"
set ylabel "test accuracy (%): Pathfinder"
set grid
set key outside right top title "family (bubble area: peak memory at 4K)"
set logscale x
set xrange [0.234889:34.4173]
set yrange [46.0914:53.777]
set xtics ("0.5" 0.5, "1" 1, "2" 2, "5" 5, "10" 10, "20" 20)
set label 1 "full" at 0.4228,49.6833 center offset char 0,2.16 front
set label 2 "bigbird" at 3.2823,50.05 center offset char -4.80981,1.09857 front
set label 3 "compressed" at 2.1489,50.0167 center offset char 0,-0.970457 front
set label 4 "efficient" at 12.379,49.8833 center offset char 0,-0.955583 front
set label 5 "flash" at 1.0498,50.0333 center offset char 0,0.960268 front
set label 6 "fnet" at 19.1207,50.1667 center offset char 2.94027,0 front
set label 7 "global" at 10.6246,50.15 center offset char 0,0.960506 front
set label 8 "gmlp" at 0.796,49.7833 center offset char 0,1.35063 front
set label 9 "linear" at 8.3155,50.1 center offset char 0,-0.957153 front
set label 10 "linformer" at 3.836,50.3 center offset char 0,1.02204 front
set label 11 "local" at 6.6331,49.95 center offset char -3.61887,-0.996729 front
set label 12 "longformer" at 6.0202,50.2833 center offset char 6.12814,2.00167 front
set arrow from first 6.25491,50.3281 to first 7.86593,50.5965 nohead lw 0.8 lc rgb '#999999' back
set label 13 "mixer" at 16.6036,50.2167 center offset char 0,0.908955 front
set label 14 "performer" at 5.9607,50.2167 center offset char 0,4.01277 front
set arrow from first 5.9607,50.3048 to first 5.9607,50.9524 nohead lw 0.8 lc rgb '#999999' back
set label 15 "reformer" at 2.5903,50 center offset char 0,-2.03859 front
set arrow from first 2.5903,49.9064 to first 2.5903,49.6858 nohead lw 0.8 lc rgb '#999999' back
set label 16 "rfa" at 4.2156,50 center offset char 2.79138,0 front
set label 17 "routing" at 3.5943,49.5167 center offset char 0,-0.971377 front
set label 18 "sinkhorn" at 5.8349,50.1833 center offset char 0,-4.01639 front
set arrow from first 5.8349,50.0944 to first 5.8349,49.4469 nohead lw 0.8 lc rgb '#999999' back
set label 19 "strided" at 7.3174,50.2167 center offset char 4.58157,3.97684 front
set arrow from first 7.48037,50.2852 to first 9.2524,50.9468 nohead lw 0.8 lc rgb '#999999' back
set label 20 "synthesizer" at 0.5074,49.75 center offset char 6.55716,-1.96382 front
set arrow from first 0.525694,49.712 to first 0.674427,49.4445 nohead lw 0.8 lc rgb '#999999' back
set arrow from graph 0, first 50 to graph 1, first 50 nohead dt 2 lc rgb '#888888'
set label 21 "chance (majority class)" at graph 0.01, first 50 offset 0,0.6 left textcolor rgb '#888888'
plot $f0 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#1f77b4' notitle, \
     $f0 using 2:3:4 with points pt 7 ps variable lc rgb '#701f77b4' title "dense", $f0 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#1f77b4' notitle, \
     $f1 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#2ca02c' notitle, \
     $f1 using 2:3:4 with points pt 7 ps variable lc rgb '#702ca02c' title "fixed", $f1 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#2ca02c' notitle, \
     $f2 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#9467bd' notitle, \
     $f2 using 2:3:4 with points pt 7 ps variable lc rgb '#709467bd' title "low-rank/kernel", $f2 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#9467bd' notitle, \
     $f3 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#8c564b' notitle, \
     $f3 using 2:3:4 with points pt 7 ps variable lc rgb '#708c564b' title "attention-free", $f3 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#8c564b' notitle, \
     $f4 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#ff7f0e' notitle, \
     $f4 using 2:3:4 with points pt 7 ps variable lc rgb '#70ff7f0e' title "learned", $f4 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#ff7f0e' notitle

unset output
set terminal pngcairo size 1100,650 noenhanced font 'Helvetica,11' background rgb 'white'
set output 'chart-pathfinder.png'
set title "Pathfinder on this CPU (preset mini)"
set xlabel "training steps/s at 4096 tokens (attnzoo bench, batch 2, 2 layer(s), dim 64), log scale"
set ylabel "test accuracy (%): Pathfinder"
set grid
set key outside right top title "family (bubble area: peak memory at 4K)"
set logscale x
set xrange [0.234889:34.4173]
set yrange [46.0914:53.777]
set xtics ("0.5" 0.5, "1" 1, "2" 2, "5" 5, "10" 10, "20" 20)
set label 1 "full" at 0.4228,49.6833 center offset char 0,2.16 front
set label 2 "bigbird" at 3.2823,50.05 center offset char -4.80981,1.09857 front
set label 3 "compressed" at 2.1489,50.0167 center offset char 0,-0.970457 front
set label 4 "efficient" at 12.379,49.8833 center offset char 0,-0.955583 front
set label 5 "flash" at 1.0498,50.0333 center offset char 0,0.960268 front
set label 6 "fnet" at 19.1207,50.1667 center offset char 2.94027,0 front
set label 7 "global" at 10.6246,50.15 center offset char 0,0.960506 front
set label 8 "gmlp" at 0.796,49.7833 center offset char 0,1.35063 front
set label 9 "linear" at 8.3155,50.1 center offset char 0,-0.957153 front
set label 10 "linformer" at 3.836,50.3 center offset char 0,1.02204 front
set label 11 "local" at 6.6331,49.95 center offset char -3.61887,-0.996729 front
set label 12 "longformer" at 6.0202,50.2833 center offset char 6.12814,2.00167 front
set arrow from first 6.25491,50.3281 to first 7.86593,50.5965 nohead lw 0.8 lc rgb '#999999' back
set label 13 "mixer" at 16.6036,50.2167 center offset char 0,0.908955 front
set label 14 "performer" at 5.9607,50.2167 center offset char 0,4.01277 front
set arrow from first 5.9607,50.3048 to first 5.9607,50.9524 nohead lw 0.8 lc rgb '#999999' back
set label 15 "reformer" at 2.5903,50 center offset char 0,-2.03859 front
set arrow from first 2.5903,49.9064 to first 2.5903,49.6858 nohead lw 0.8 lc rgb '#999999' back
set label 16 "rfa" at 4.2156,50 center offset char 2.79138,0 front
set label 17 "routing" at 3.5943,49.5167 center offset char 0,-0.971377 front
set label 18 "sinkhorn" at 5.8349,50.1833 center offset char 0,-4.01639 front
set arrow from first 5.8349,50.0944 to first 5.8349,49.4469 nohead lw 0.8 lc rgb '#999999' back
set label 19 "strided" at 7.3174,50.2167 center offset char 4.58157,3.97684 front
set arrow from first 7.48037,50.2852 to first 9.2524,50.9468 nohead lw 0.8 lc rgb '#999999' back
set label 20 "synthesizer" at 0.5074,49.75 center offset char 6.55716,-1.96382 front
set arrow from first 0.525694,49.712 to first 0.674427,49.4445 nohead lw 0.8 lc rgb '#999999' back
set arrow from graph 0, first 50 to graph 1, first 50 nohead dt 2 lc rgb '#888888'
set label 21 "chance (majority class)" at graph 0.01, first 50 offset 0,0.6 left textcolor rgb '#888888'
plot $f0 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#1f77b4' notitle, \
     $f0 using 2:3:4 with points pt 7 ps variable lc rgb '#701f77b4' title "dense", $f0 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#1f77b4' notitle, \
     $f1 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#2ca02c' notitle, \
     $f1 using 2:3:4 with points pt 7 ps variable lc rgb '#702ca02c' title "fixed", $f1 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#2ca02c' notitle, \
     $f2 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#9467bd' notitle, \
     $f2 using 2:3:4 with points pt 7 ps variable lc rgb '#709467bd' title "low-rank/kernel", $f2 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#9467bd' notitle, \
     $f3 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#8c564b' notitle, \
     $f3 using 2:3:4 with points pt 7 ps variable lc rgb '#708c564b' title "attention-free", $f3 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#8c564b' notitle, \
     $f4 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#ff7f0e' notitle, \
     $f4 using 2:3:4 with points pt 7 ps variable lc rgb '#70ff7f0e' title "learned", $f4 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#ff7f0e' notitle

unset output
