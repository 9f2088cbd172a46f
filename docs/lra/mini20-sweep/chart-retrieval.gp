# chart-retrieval.svg and chart-retrieval.png, written by attnzoo; rerun with `gnuplot chart-retrieval.gp` in this folder.
$f0 << EOD
"full" 0.4228 53.9049 7 0.112298
"flash" 1.0498 53.9049 1.37625 0.112298
EOD
$f1 << EOD
"bigbird" 3.2823 54.2869 2.02453 1.14207
"global" 10.6246 59.9604 1.37737 1.71906
"local" 6.6331 55.0509 1.54717 2.12054
"longformer" 6.0202 53.8059 1.57035 1.01276
"strided" 7.3174 53.5654 1.45393 1.0838
EOD
$f2 << EOD
"compressed" 2.1489 50.7499 1.42402 0.577832
"efficient" 12.379 52.3911 1.3543 1.9097
"linear" 8.3155 51.1602 1.36165 1.10791
"linformer" 3.836 50.1698 1.66584 0.306074
"performer" 5.9607 52.3628 1.62235 1.27923
"rfa" 4.2156 50.6791 1.97844 0.588133
"synthesizer" 0.5074 50.8489 1.39291 0.683085
EOD
$f3 << EOD
"fnet" 19.1207 49.8019 1.10067 0.272882
"gmlp" 0.796 49.2784 3.2061 0.683085
"mixer" 16.6036 50.382 1.13573 0.556659
EOD
$f4 << EOD
"reformer" 2.5903 52.0939 1.7434 2.18141
"routing" 3.5943 52.4618 1.42833 1.36155
"sinkhorn" 5.8349 50.1132 1.63932 1.34647
EOD

set terminal svg size 1100,650 dynamic noenhanced font 'Helvetica,13' background rgb 'white'
set output 'chart-retrieval.svg'
set title "Retrieval on this CPU (preset mini)"
set xlabel "training steps/s at 4096 tokens (attnzoo bench, batch 2, 2 layer(s), dim 64), log scale"
set ylabel "test accuracy (%): Retrieval"
set grid
set key outside right top title "family (bubble area: peak memory at 4K)"
set logscale x
set xrange [0.234889:34.4173]
set yrange [45.5954:64.6794]
set xtics ("0.5" 0.5, "1" 1, "2" 2, "5" 5, "10" 10, "20" 20)
set label 1 "full" at 0.4228,53.9049 center offset char 0,2.16 front
set label 2 "bigbird" at 3.2823,54.2869 center offset char 0,1.09857 front
set label 3 "compressed" at 2.1489,50.7499 center offset char -6.06961,0 front
set label 4 "efficient" at 12.379,52.3911 center offset char 0,0.955583 front
set label 5 "flash" at 1.0498,53.9049 center offset char 0,0.960268 front
set label 6 "fnet" at 19.1207,49.8019 center offset char 0,-0.901476 front
set label 7 "global" at 10.6246,59.9604 center offset char 0,0.960506 front
set label 8 "gmlp" at 0.796,49.2784 center offset char 0,1.35063 front
set label 9 "linear" at 8.3155,51.1602 center offset char 0,0.957153 front
set label 10 "linformer" at 3.836,50.1698 center offset char 0,-1.02204 front
set label 11 "local" at 6.6331,55.0509 center offset char 0,0.996729 front
set label 12 "longformer" at 6.0202,53.8059 center offset char 0,1.00167 front
set label 13 "mixer" at 16.6036,50.382 center offset char 0,0.908955 front
set label 14 "performer" at 5.9607,52.3628 center offset char 0,1.01277 front
set label 15 "reformer" at 2.5903,52.0939 center offset char 0,1.03859 front
set label 16 "rfa" at 4.2156,50.6791 center offset char 0,1.08873 front
set label 17 "routing" at 3.5943,52.4618 center offset char 0,-0.971377 front
set label 18 "sinkhorn" at 5.8349,50.1132 center offset char 0,1.01639 front
set label 19 "strided" at 7.3174,53.5654 center offset char 4.58157,0 front
set label 20 "synthesizer" at 0.5074,50.8489 center offset char 0,0.963821 front
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
set output 'chart-retrieval.png'
set title "Retrieval on this CPU (preset mini)"
set xlabel "training steps/s at 4096 tokens (attnzoo bench, batch 2, 2 layer(s), dim 64), log scale"
set ylabel "test accuracy (%): Retrieval"
set grid
set key outside right top title "family (bubble area: peak memory at 4K)"
set logscale x
set xrange [0.234889:34.4173]
set yrange [45.5954:64.6794]
set xtics ("0.5" 0.5, "1" 1, "2" 2, "5" 5, "10" 10, "20" 20)
set label 1 "full" at 0.4228,53.9049 center offset char 0,2.16 front
set label 2 "bigbird" at 3.2823,54.2869 center offset char 0,1.09857 front
set label 3 "compressed" at 2.1489,50.7499 center offset char -6.06961,0 front
set label 4 "efficient" at 12.379,52.3911 center offset char 0,0.955583 front
set label 5 "flash" at 1.0498,53.9049 center offset char 0,0.960268 front
set label 6 "fnet" at 19.1207,49.8019 center offset char 0,-0.901476 front
set label 7 "global" at 10.6246,59.9604 center offset char 0,0.960506 front
set label 8 "gmlp" at 0.796,49.2784 center offset char 0,1.35063 front
set label 9 "linear" at 8.3155,51.1602 center offset char 0,0.957153 front
set label 10 "linformer" at 3.836,50.1698 center offset char 0,-1.02204 front
set label 11 "local" at 6.6331,55.0509 center offset char 0,0.996729 front
set label 12 "longformer" at 6.0202,53.8059 center offset char 0,1.00167 front
set label 13 "mixer" at 16.6036,50.382 center offset char 0,0.908955 front
set label 14 "performer" at 5.9607,52.3628 center offset char 0,1.01277 front
set label 15 "reformer" at 2.5903,52.0939 center offset char 0,1.03859 front
set label 16 "rfa" at 4.2156,50.6791 center offset char 0,1.08873 front
set label 17 "routing" at 3.5943,52.4618 center offset char 0,-0.971377 front
set label 18 "sinkhorn" at 5.8349,50.1132 center offset char 0,1.01639 front
set label 19 "strided" at 7.3174,53.5654 center offset char 4.58157,0 front
set label 20 "synthesizer" at 0.5074,50.8489 center offset char 0,0.963821 front
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
