# chart-text.svg and chart-text.png, written by attnzoo; rerun with `gnuplot chart-text.gp` in this folder.
$f0 << EOD
"full" 0.4228 92.8333 7 1.01283
"flash" 1.0498 92.8333 1.37625 1.01283
EOD
$f1 << EOD
"bigbird" 3.2823 93.05 2.02453 0.327872
"global" 10.6246 89.9333 1.37737 0.748888
"local" 6.6331 93.6333 1.54717 0.490748
"longformer" 6.0202 93.3833 1.57035 0.189297
"strided" 7.3174 93.25 1.45393 0.35
EOD
$f2 << EOD
"compressed" 2.1489 94.05 1.42402 0.1
"efficient" 12.379 93.0833 1.3543 0.431084
"linear" 8.3155 92.4833 1.36165 0.125831
"linformer" 3.836 91.7833 1.66584 1.12509
"performer" 5.9607 93.4167 1.62235 0.500833
"rfa" 4.2156 92.7167 1.97844 0.152753
"synthesizer" 0.5074 92.2333 1.39291 0.464579
EOD
$f3 << EOD
"fnet" 19.1207 88.2 1.10067 0.1
"gmlp" 0.796 91.5667 3.2061 0.305505
"mixer" 16.6036 91.5167 1.13573 0.0288675
EOD
$f4 << EOD
"reformer" 2.5903 92.2833 1.7434 0.208167
"routing" 3.5943 93.25 1.42833 0.327872
"sinkhorn" 5.8349 93.4667 1.63932 0.236291
EOD

set terminal svg size 1100,650 dynamic noenhanced font 'Helvetica,13' background rgb 'white'
set output 'chart-text.svg'
set title "Text on this CPU (preset mini)"
set xlabel "training steps/s at 4096 tokens (attnzoo bench, batch 2, 2 layer(s), dim 64), log scale"
set ylabel "test accuracy (%): Text"
set grid
set key outside right top title "family (bubble area: peak memory at 4K)"
set logscale x
set xrange [0.234889:34.4173]
set yrange [67.55:97.15]
set xtics ("0.5" 0.5, "1" 1, "2" 2, "5" 5, "10" 10, "20" 20)
set label 1 "full" at 0.4228,92.8333 center offset char 0,2.16 front
set label 2 "bigbird" at 3.2823,93.05 center offset char -4.80981,0 front
set label 3 "compressed" at 2.1489,94.05 center offset char 0,0.970457 front
set label 4 "efficient" at 12.379,93.0833 center offset char 0,0.955583 front
set label 5 "flash" at 1.0498,92.8333 center offset char 0,0.960268 front
set label 6 "fnet" at 19.1207,88.2 center offset char 0,0.901476 front
set label 7 "global" at 10.6246,89.9333 center offset char 0,0.960506 front
set label 8 "gmlp" at 0.796,91.5667 center offset char 0,1.35063 front
set label 9 "linear" at 8.3155,92.4833 center offset char 0,-0.957153 front
set label 10 "linformer" at 3.836,91.7833 center offset char 0,-1.02204 front
set label 11 "local" at 6.6331,93.6333 center offset char 0,0.996729 front
set label 12 "longformer" at 6.0202,93.3833 center offset char -6.12814,1.00167 front
set label 13 "mixer" at 16.6036,91.5167 center offset char 0,0.908955 front
set label 14 "performer" at 5.9607,93.4167 center offset char -5.64894,2.01277 front
set arrow from first 5.7366,93.6052 to first 4.65785,94.63 nohead lw 0.8 lc rgb '#999999' back
set label 15 "reformer" at 2.5903,92.2833 center offset char -5.19736,-1.03859 front
set label 16 "rfa" at 4.2156,92.7167 center offset char 2.79138,0 front
set label 17 "routing" at 3.5943,93.25 center offset char 0,3.97138 front
set arrow from first 3.5943,93.5554 to first 3.5943,96.0494 nohead lw 0.8 lc rgb '#999999' back
set label 18 "sinkhorn" at 5.8349,93.4667 center offset char 0,3.01639 front
set arrow from first 5.8349,93.809 to first 5.8349,95.4809 nohead lw 0.8 lc rgb '#999999' back
set label 19 "strided" at 7.3174,93.25 center offset char 4.58157,1.97684 front
set arrow from first 7.56072,93.4449 to first 8.91994,94.4298 nohead lw 0.8 lc rgb '#999999' back
set label 20 "synthesizer" at 0.5074,92.2333 center offset char 0,-1.96382 front
set arrow from first 0.5074,91.9342 to first 0.5074,91.0846 nohead lw 0.8 lc rgb '#999999' back
set arrow from graph 0, first 70.55 to graph 1, first 70.55 nohead dt 2 lc rgb '#888888'
set label 21 "chance (majority class)" at graph 0.01, first 70.55 offset 0,0.6 left textcolor rgb '#888888'
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
set output 'chart-text.png'
set title "Text on this CPU (preset mini)"
set xlabel "training steps/s at 4096 tokens (attnzoo bench, batch 2, 2 layer(s), dim 64), log scale"
set ylabel "test accuracy (%): Text"
set grid
set key outside right top title "family (bubble area: peak memory at 4K)"
set logscale x
set xrange [0.234889:34.4173]
set yrange [67.55:97.15]
set xtics ("0.5" 0.5, "1" 1, "2" 2, "5" 5, "10" 10, "20" 20)
set label 1 "full" at 0.4228,92.8333 center offset char 0,2.16 front
set label 2 "bigbird" at 3.2823,93.05 center offset char -4.80981,0 front
set label 3 "compressed" at 2.1489,94.05 center offset char 0,0.970457 front
set label 4 "efficient" at 12.379,93.0833 center offset char 0,0.955583 front
set label 5 "flash" at 1.0498,92.8333 center offset char 0,0.960268 front
set label 6 "fnet" at 19.1207,88.2 center offset char 0,0.901476 front
set label 7 "global" at 10.6246,89.9333 center offset char 0,0.960506 front
set label 8 "gmlp" at 0.796,91.5667 center offset char 0,1.35063 front
set label 9 "linear" at 8.3155,92.4833 center offset char 0,-0.957153 front
set label 10 "linformer" at 3.836,91.7833 center offset char 0,-1.02204 front
set label 11 "local" at 6.6331,93.6333 center offset char 0,0.996729 front
set label 12 "longformer" at 6.0202,93.3833 center offset char -6.12814,1.00167 front
set label 13 "mixer" at 16.6036,91.5167 center offset char 0,0.908955 front
set label 14 "performer" at 5.9607,93.4167 center offset char -5.64894,2.01277 front
set arrow from first 5.7366,93.6052 to first 4.65785,94.63 nohead lw 0.8 lc rgb '#999999' back
set label 15 "reformer" at 2.5903,92.2833 center offset char -5.19736,-1.03859 front
set label 16 "rfa" at 4.2156,92.7167 center offset char 2.79138,0 front
set label 17 "routing" at 3.5943,93.25 center offset char 0,3.97138 front
set arrow from first 3.5943,93.5554 to first 3.5943,96.0494 nohead lw 0.8 lc rgb '#999999' back
set label 18 "sinkhorn" at 5.8349,93.4667 center offset char 0,3.01639 front
set arrow from first 5.8349,93.809 to first 5.8349,95.4809 nohead lw 0.8 lc rgb '#999999' back
set label 19 "strided" at 7.3174,93.25 center offset char 4.58157,1.97684 front
set arrow from first 7.56072,93.4449 to first 8.91994,94.4298 nohead lw 0.8 lc rgb '#999999' back
set label 20 "synthesizer" at 0.5074,92.2333 center offset char 0,-1.96382 front
set arrow from first 0.5074,91.9342 to first 0.5074,91.0846 nohead lw 0.8 lc rgb '#999999' back
set arrow from graph 0, first 70.55 to graph 1, first 70.55 nohead dt 2 lc rgb '#888888'
set label 21 "chance (majority class)" at graph 0.01, first 70.55 offset 0,0.6 left textcolor rgb '#888888'
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
