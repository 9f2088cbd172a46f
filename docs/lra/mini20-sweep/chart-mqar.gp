# chart-mqar.svg and chart-mqar.png, written by attnzoo; rerun with `gnuplot chart-mqar.gp` in this folder.
$f0 << EOD
"full" 0.4228 99.9896 7 0.00721688
"flash" 1.0498 99.9958 1.37625 0.00360844
EOD
$f1 << EOD
"bigbird" 3.2823 99.9813 2.02453 0.0125
"global" 10.6246 65.2208 1.37737 6.60077
"local" 6.6331 42.7354 1.54717 19.2127
"longformer" 6.0202 16.275 1.57035 18.6501
"strided" 7.3174 0.422917 1.45393 0.0538855
EOD
$f2 << EOD
"compressed" 2.1489 1.28125 1.42402 0.0962175
"efficient" 12.379 75.0604 1.3543 4.98514
"linear" 8.3155 6.25833 1.36165 0.283693
"linformer" 3.836 37.2479 1.66584 54.3451
"performer" 5.9607 5.19167 1.62235 0.512131
"rfa" 4.2156 5.60833 1.97844 0.226413
"synthesizer" 0.5074 6.24792 1.39291 0.179663
EOD
$f3 << EOD
"fnet" 19.1207 0.402083 1.10067 0.0607033
"gmlp" 0.796 3.19583 3.2061 2.27054
"mixer" 16.6036 6.91667 1.13573 0.0893408
EOD
$f4 << EOD
"reformer" 2.5903 99.3604 1.7434 0.763584
"routing" 3.5943 1.475 1.42833 0.880075
"sinkhorn" 5.8349 19.1417 1.63932 13.8121
EOD

set terminal svg size 1100,650 dynamic noenhanced font 'Helvetica,13' background rgb 'white'
set output 'chart-mqar.svg'
set title "Recall on this CPU (preset mini)"
set xlabel "training steps/s at 4096 tokens (attnzoo bench, batch 2, 2 layer(s), dim 64), log scale"
set ylabel "test accuracy (%): Recall"
set grid
set key outside right top title "family (bubble area: peak memory at 4K)"
set logscale x
set xrange [0.234889:34.4173]
set yrange [-31.1637:114.191]
set xtics ("0.5" 0.5, "1" 1, "2" 2, "5" 5, "10" 10, "20" 20)
set label 1 "full" at 0.4228,99.9896 center offset char 0,2.16 front
set label 2 "bigbird" at 3.2823,99.9813 center offset char 0,1.09857 front
set label 3 "compressed" at 2.1489,1.28125 center offset char 0,0.970457 front
set label 4 "efficient" at 12.379,75.0604 center offset char 0,0.955583 front
set label 5 "flash" at 1.0498,99.9958 center offset char 0,0.960268 front
set label 6 "fnet" at 19.1207,0.402083 center offset char 0,-0.901476 front
set label 7 "global" at 10.6246,65.2208 center offset char 0,-0.960506 front
set label 8 "gmlp" at 0.796,3.19583 center offset char 0,1.35063 front
set label 9 "linear" at 8.3155,6.25833 center offset char 0,0.957153 front
set label 10 "linformer" at 3.836,37.2479 center offset char 0,1.02204 front
set label 11 "local" at 6.6331,42.7354 center offset char 0,0.996729 front
set label 12 "longformer" at 6.0202,16.275 center offset char 6.12814,0 front
set label 13 "mixer" at 16.6036,6.91667 center offset char 0,0.908955 front
set label 14 "performer" at 5.9607,5.19167 center offset char 5.64894,-2.01277 front
set arrow from first 6.19356,4.26585 to first 7.62797,-0.766784 nohead lw 0.8 lc rgb '#999999' back
set label 15 "reformer" at 2.5903,99.3604 center offset char 0,-1.03859 front
set label 16 "rfa" at 4.2156,5.60833 center offset char 2.79138,0 front
set label 17 "routing" at 3.5943,1.475 center offset char -4.57133,-0.971377 front
set label 18 "sinkhorn" at 5.8349,19.1417 center offset char 0,1.01639 front
set label 19 "strided" at 7.3174,0.422917 center offset char 0,-1.97684 front
set arrow from first 7.3174,-1.09862 to first 7.3174,-5.27082 nohead lw 0.8 lc rgb '#999999' back
set label 20 "synthesizer" at 0.5074,6.24792 center offset char 0,0.963821 front
set arrow from graph 0, first 0.5625 to graph 1, first 0.5625 nohead dt 2 lc rgb '#888888'
set label 21 "chance (majority class)" at graph 0.01, first 0.5625 offset 0,0.6 left textcolor rgb '#888888'
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
set output 'chart-mqar.png'
set title "Recall on this CPU (preset mini)"
set xlabel "training steps/s at 4096 tokens (attnzoo bench, batch 2, 2 layer(s), dim 64), log scale"
set ylabel "test accuracy (%): Recall"
set grid
set key outside right top title "family (bubble area: peak memory at 4K)"
set logscale x
set xrange [0.234889:34.4173]
set yrange [-31.1637:114.191]
set xtics ("0.5" 0.5, "1" 1, "2" 2, "5" 5, "10" 10, "20" 20)
set label 1 "full" at 0.4228,99.9896 center offset char 0,2.16 front
set label 2 "bigbird" at 3.2823,99.9813 center offset char 0,1.09857 front
set label 3 "compressed" at 2.1489,1.28125 center offset char 0,0.970457 front
set label 4 "efficient" at 12.379,75.0604 center offset char 0,0.955583 front
set label 5 "flash" at 1.0498,99.9958 center offset char 0,0.960268 front
set label 6 "fnet" at 19.1207,0.402083 center offset char 0,-0.901476 front
set label 7 "global" at 10.6246,65.2208 center offset char 0,-0.960506 front
set label 8 "gmlp" at 0.796,3.19583 center offset char 0,1.35063 front
set label 9 "linear" at 8.3155,6.25833 center offset char 0,0.957153 front
set label 10 "linformer" at 3.836,37.2479 center offset char 0,1.02204 front
set label 11 "local" at 6.6331,42.7354 center offset char 0,0.996729 front
set label 12 "longformer" at 6.0202,16.275 center offset char 6.12814,0 front
set label 13 "mixer" at 16.6036,6.91667 center offset char 0,0.908955 front
set label 14 "performer" at 5.9607,5.19167 center offset char 5.64894,-2.01277 front
set arrow from first 6.19356,4.26585 to first 7.62797,-0.766784 nohead lw 0.8 lc rgb '#999999' back
set label 15 "reformer" at 2.5903,99.3604 center offset char 0,-1.03859 front
set label 16 "rfa" at 4.2156,5.60833 center offset char 2.79138,0 front
set label 17 "routing" at 3.5943,1.475 center offset char -4.57133,-0.971377 front
set label 18 "sinkhorn" at 5.8349,19.1417 center offset char 0,1.01639 front
set label 19 "strided" at 7.3174,0.422917 center offset char 0,-1.97684 front
set arrow from first 7.3174,-1.09862 to first 7.3174,-5.27082 nohead lw 0.8 lc rgb '#999999' back
set label 20 "synthesizer" at 0.5074,6.24792 center offset char 0,0.963821 front
set arrow from graph 0, first 0.5625 to graph 1, first 0.5625 nohead dt 2 lc rgb '#888888'
set label 21 "chance (majority class)" at graph 0.01, first 0.5625 offset 0,0.6 left textcolor rgb '#888888'
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
