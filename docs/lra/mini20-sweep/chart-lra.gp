# chart-lra.svg and chart-lra.png, written by attnzoo; rerun with `gnuplot chart-lra.gp` in this folder.
$f0 << EOD
"full" 0.4228 61.971 7 0.321462
"flash" 1.0498 62.0377 1.37625 0.302001
EOD
$f1 << EOD
"bigbird" 3.2823 62.2974 2.02453 0.340059
"global" 10.6246 60.1654 1.37737 0.503494
"local" 6.6331 62.2969 1.54717 0.505142
"longformer" 6.0202 62.0578 1.57035 0.429567
"strided" 7.3174 61.8764 1.45393 0.464096
EOD
$f2 << EOD
"compressed" 2.1489 62.1033 1.42402 0.174897
"efficient" 12.379 61.5749 1.3543 0.497405
"linear" 8.3155 56.5487 1.36165 0.325421
"linformer" 3.836 62.1673 1.66584 0.294642
"performer" 5.9607 62.0126 1.62235 0.363396
"rfa" 4.2156 57.1225 1.97844 0.358333
"synthesizer" 0.5074 58.6931 1.39291 0.74922
EOD
$f3 << EOD
"fnet" 19.1207 58.8404 1.10067 0.435406
"gmlp" 0.796 61.7324 3.2061 0.22263
"mixer" 16.6036 61.3364 1.13573 0.235573
EOD
$f4 << EOD
"reformer" 2.5903 56.3588 1.7434 0.456955
"routing" 3.5943 61.8124 1.42833 0.31689
"sinkhorn" 5.8349 61.686 1.63932 0.315677
EOD

set terminal svg size 1100,650 dynamic noenhanced font 'Helvetica,13' background rgb 'white'
set output 'chart-lra.svg'
set title "LRA's five tasks on this CPU (preset mini)"
set xlabel "training steps/s at 4096 tokens (attnzoo bench, batch 2, 2 layer(s), dim 64), log scale"
set ylabel "LRA mean test accuracy (%) over ListOps, Text, Retrieval, Image and Pathfinder"
set grid
set key outside right top title "family (bubble area: peak memory at 4K)"
set logscale x
set xrange [0.234889:34.4173]
set yrange [36.69:65.802]
set xtics ("0.5" 0.5, "1" 1, "2" 2, "5" 5, "10" 10, "20" 20)
set label 1 "full" at 0.4228,61.971 center offset char 0,2.16 front
set label 2 "bigbird" at 3.2823,62.2974 center offset char 0,1.09857 front
set label 3 "compressed" at 2.1489,62.1033 center offset char 0,-0.970457 front
set label 4 "efficient" at 12.379,61.5749 center offset char 0,0.955583 front
set label 5 "flash" at 1.0498,62.0377 center offset char 0,0.960268 front
set label 6 "fnet" at 19.1207,58.8404 center offset char 0,0.901476 front
set label 7 "global" at 10.6246,60.1654 center offset char 0,-0.960506 front
set label 8 "gmlp" at 0.796,61.7324 center offset char 0,1.35063 front
set label 9 "linear" at 8.3155,56.5487 center offset char 0,0.957153 front
set label 10 "linformer" at 3.836,62.1673 center offset char 5.66633,1.02204 front
set label 11 "local" at 6.6331,62.2969 center offset char 0,1.99673 front
set arrow from first 6.6331,62.6177 to first 6.6331,63.4533 nohead lw 0.8 lc rgb '#999999' back
set label 12 "longformer" at 6.0202,62.0578 center offset char 0,-2.00167 front
set arrow from first 6.0202,61.733 to first 6.0202,60.8974 nohead lw 0.8 lc rgb '#999999' back
set label 13 "mixer" at 16.6036,61.3364 center offset char 0,-0.908955 front
set label 14 "performer" at 5.9607,62.0126 center offset char 0,-3.01277 front
set arrow from first 5.9607,61.6788 to first 5.9607,60.0345 nohead lw 0.8 lc rgb '#999999' back
set label 15 "reformer" at 2.5903,56.3588 center offset char 0,1.03859 front
set label 16 "rfa" at 4.2156,57.1225 center offset char 0,1.08873 front
set label 17 "routing" at 3.5943,61.8124 center offset char 0,-0.971377 front
set label 18 "sinkhorn" at 5.8349,61.686 center offset char -5.15573,3.01639 front
set arrow from first 5.65498,61.9348 to first 4.53918,63.681 nohead lw 0.8 lc rgb '#999999' back
set label 19 "strided" at 7.3174,61.8764 center offset char 4.58157,1.97684 front
set arrow from first 7.56072,62.0681 to first 8.91994,63.0368 nohead lw 0.8 lc rgb '#999999' back
set label 20 "synthesizer" at 0.5074,58.6931 center offset char 0,0.963821 front
set arrow from graph 0, first 39.69 to graph 1, first 39.69 nohead dt 2 lc rgb '#888888'
set label 21 "chance (majority class)" at graph 0.01, first 39.69 offset 0,0.6 left textcolor rgb '#888888'
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
set output 'chart-lra.png'
set title "LRA's five tasks on this CPU (preset mini)"
set xlabel "training steps/s at 4096 tokens (attnzoo bench, batch 2, 2 layer(s), dim 64), log scale"
set ylabel "LRA mean test accuracy (%) over ListOps, Text, Retrieval, Image and Pathfinder"
set grid
set key outside right top title "family (bubble area: peak memory at 4K)"
set logscale x
set xrange [0.234889:34.4173]
set yrange [36.69:65.802]
set xtics ("0.5" 0.5, "1" 1, "2" 2, "5" 5, "10" 10, "20" 20)
set label 1 "full" at 0.4228,61.971 center offset char 0,2.16 front
set label 2 "bigbird" at 3.2823,62.2974 center offset char 0,1.09857 front
set label 3 "compressed" at 2.1489,62.1033 center offset char 0,-0.970457 front
set label 4 "efficient" at 12.379,61.5749 center offset char 0,0.955583 front
set label 5 "flash" at 1.0498,62.0377 center offset char 0,0.960268 front
set label 6 "fnet" at 19.1207,58.8404 center offset char 0,0.901476 front
set label 7 "global" at 10.6246,60.1654 center offset char 0,-0.960506 front
set label 8 "gmlp" at 0.796,61.7324 center offset char 0,1.35063 front
set label 9 "linear" at 8.3155,56.5487 center offset char 0,0.957153 front
set label 10 "linformer" at 3.836,62.1673 center offset char 5.66633,1.02204 front
set label 11 "local" at 6.6331,62.2969 center offset char 0,1.99673 front
set arrow from first 6.6331,62.6177 to first 6.6331,63.4533 nohead lw 0.8 lc rgb '#999999' back
set label 12 "longformer" at 6.0202,62.0578 center offset char 0,-2.00167 front
set arrow from first 6.0202,61.733 to first 6.0202,60.8974 nohead lw 0.8 lc rgb '#999999' back
set label 13 "mixer" at 16.6036,61.3364 center offset char 0,-0.908955 front
set label 14 "performer" at 5.9607,62.0126 center offset char 0,-3.01277 front
set arrow from first 5.9607,61.6788 to first 5.9607,60.0345 nohead lw 0.8 lc rgb '#999999' back
set label 15 "reformer" at 2.5903,56.3588 center offset char 0,1.03859 front
set label 16 "rfa" at 4.2156,57.1225 center offset char 0,1.08873 front
set label 17 "routing" at 3.5943,61.8124 center offset char 0,-0.971377 front
set label 18 "sinkhorn" at 5.8349,61.686 center offset char -5.15573,3.01639 front
set arrow from first 5.65498,61.9348 to first 4.53918,63.681 nohead lw 0.8 lc rgb '#999999' back
set label 19 "strided" at 7.3174,61.8764 center offset char 4.58157,1.97684 front
set arrow from first 7.56072,62.0681 to first 8.91994,63.0368 nohead lw 0.8 lc rgb '#999999' back
set label 20 "synthesizer" at 0.5074,58.6931 center offset char 0,0.963821 front
set arrow from graph 0, first 39.69 to graph 1, first 39.69 nohead dt 2 lc rgb '#888888'
set label 21 "chance (majority class)" at graph 0.01, first 39.69 offset 0,0.6 left textcolor rgb '#888888'
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
