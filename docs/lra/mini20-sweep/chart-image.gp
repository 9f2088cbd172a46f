# chart-image.svg and chart-image.png, written by attnzoo; rerun with `gnuplot chart-image.gp` in this folder.
$f0 << EOD
"full" 0.4228 77.1167 7 1.10943
"flash" 1.0498 77.1167 1.37625 1.10943
EOD
$f1 << EOD
"bigbird" 3.2823 78.0333 2.02453 0.941187
"global" 10.6246 64.5667 1.37737 0.80829
"local" 6.6331 77.0833 1.54717 1.14054
"longformer" 6.0202 76.7667 1.57035 1.68622
"strided" 7.3174 76.2333 1.45393 1.94058
EOD
$f2 << EOD
"compressed" 2.1489 79.9 1.42402 0.458258
"efficient" 12.379 76.5833 1.3543 1.37143
"linear" 8.3155 71.9167 1.36165 1.10038
"linformer" 3.836 82.9 1.66584 0.34641
"performer" 5.9607 77.6667 1.62235 1.11841
"rfa" 4.2156 75.1 1.97844 1.62096
"synthesizer" 0.5074 66 1.39291 1.44222
EOD
$f3 << EOD
"fnet" 19.1207 69.9667 1.10067 1.99646
"gmlp" 0.796 82.2833 3.2061 0.375278
"mixer" 16.6036 78.6667 1.13573 0.814453
EOD
$f4 << EOD
"reformer" 2.5903 70.45 1.7434 0.61441
"routing" 3.5943 78.2833 1.42833 0.525198
"sinkhorn" 5.8349 77.9833 1.63932 0.63705
EOD

set terminal svg size 1100,650 dynamic noenhanced font 'Helvetica,13' background rgb 'white'
set output 'chart-image.svg'
set title "Image on this CPU (preset mini)"
set xlabel "training steps/s at 4096 tokens (attnzoo bench, batch 2, 2 layer(s), dim 64), log scale"
set ylabel "test accuracy (%): Image"
set grid
set key outside right top title "family (bubble area: peak memory at 4K)"
set logscale x
set xrange [0.234889:34.4173]
set yrange [2.38643:91.91]
set xtics ("0.5" 0.5, "1" 1, "2" 2, "5" 5, "10" 10, "20" 20)
set label 1 "full" at 0.4228,77.1167 center offset char 0,2.16 front
set label 2 "bigbird" at 3.2823,78.0333 center offset char 0,1.09857 front
set label 3 "compressed" at 2.1489,79.9 center offset char 0,-0.970457 front
set label 4 "efficient" at 12.379,76.5833 center offset char 0,-0.955583 front
set label 5 "flash" at 1.0498,77.1167 center offset char 0,0.960268 front
set label 6 "fnet" at 19.1207,69.9667 center offset char 0,0.901476 front
set label 7 "global" at 10.6246,64.5667 center offset char 0,0.960506 front
set label 8 "gmlp" at 0.796,82.2833 center offset char 0,1.35063 front
set label 9 "linear" at 8.3155,71.9167 center offset char 0,-0.957153 front
set label 10 "linformer" at 3.836,82.9 center offset char 0,1.02204 front
set label 11 "local" at 6.6331,77.0833 center offset char 3.61887,0.996729 front
set label 12 "longformer" at 6.0202,76.7667 center offset char -6.12814,-2.00167 front
set arrow from first 5.7943,76.245 to first 4.60757,73.1189 nohead lw 0.8 lc rgb '#999999' back
set label 13 "mixer" at 16.6036,78.6667 center offset char 0,0.908955 front
set label 14 "performer" at 5.9607,77.6667 center offset char 0,2.01277 front
set arrow from first 5.9607,78.6931 to first 5.9607,81.2628 nohead lw 0.8 lc rgb '#999999' back
set label 15 "reformer" at 2.5903,70.45 center offset char 0,-1.03859 front
set label 16 "rfa" at 4.2156,75.1 center offset char 0,1.08873 front
set label 17 "routing" at 3.5943,78.2833 center offset char 0,3.97138 front
set arrow from first 3.5943,79.2069 to first 3.5943,86.75 nohead lw 0.8 lc rgb '#999999' back
set label 18 "sinkhorn" at 5.8349,77.9833 center offset char 5.15573,3.01639 front
set arrow from first 6.02054,78.7486 to first 7.50049,84.1185 nohead lw 0.8 lc rgb '#999999' back
set label 19 "strided" at 7.3174,76.2333 center offset char -4.58157,-2.97684 front
set arrow from first 7.12464,75.509 to first 5.85898,70.2022 nohead lw 0.8 lc rgb '#999999' back
set label 20 "synthesizer" at 0.5074,66 center offset char 0,0.963821 front
set arrow from graph 0, first 11.05 to graph 1, first 11.05 nohead dt 2 lc rgb '#888888'
set label 21 "chance (majority class)" at graph 0.01, first 11.05 offset 0,0.6 left textcolor rgb '#888888'
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
set output 'chart-image.png'
set title "Image on this CPU (preset mini)"
set xlabel "training steps/s at 4096 tokens (attnzoo bench, batch 2, 2 layer(s), dim 64), log scale"
set ylabel "test accuracy (%): Image"
set grid
set key outside right top title "family (bubble area: peak memory at 4K)"
set logscale x
set xrange [0.234889:34.4173]
set yrange [2.38643:91.91]
set xtics ("0.5" 0.5, "1" 1, "2" 2, "5" 5, "10" 10, "20" 20)
set label 1 "full" at 0.4228,77.1167 center offset char 0,2.16 front
set label 2 "bigbird" at 3.2823,78.0333 center offset char 0,1.09857 front
set label 3 "compressed" at 2.1489,79.9 center offset char 0,-0.970457 front
set label 4 "efficient" at 12.379,76.5833 center offset char 0,-0.955583 front
set label 5 "flash" at 1.0498,77.1167 center offset char 0,0.960268 front
set label 6 "fnet" at 19.1207,69.9667 center offset char 0,0.901476 front
set label 7 "global" at 10.6246,64.5667 center offset char 0,0.960506 front
set label 8 "gmlp" at 0.796,82.2833 center offset char 0,1.35063 front
set label 9 "linear" at 8.3155,71.9167 center offset char 0,-0.957153 front
set label 10 "linformer" at 3.836,82.9 center offset char 0,1.02204 front
set label 11 "local" at 6.6331,77.0833 center offset char 3.61887,0.996729 front
set label 12 "longformer" at 6.0202,76.7667 center offset char -6.12814,-2.00167 front
set arrow from first 5.7943,76.245 to first 4.60757,73.1189 nohead lw 0.8 lc rgb '#999999' back
set label 13 "mixer" at 16.6036,78.6667 center offset char 0,0.908955 front
set label 14 "performer" at 5.9607,77.6667 center offset char 0,2.01277 front
set arrow from first 5.9607,78.6931 to first 5.9607,81.2628 nohead lw 0.8 lc rgb '#999999' back
set label 15 "reformer" at 2.5903,70.45 center offset char 0,-1.03859 front
set label 16 "rfa" at 4.2156,75.1 center offset char 0,1.08873 front
set label 17 "routing" at 3.5943,78.2833 center offset char 0,3.97138 front
set arrow from first 3.5943,79.2069 to first 3.5943,86.75 nohead lw 0.8 lc rgb '#999999' back
set label 18 "sinkhorn" at 5.8349,77.9833 center offset char 5.15573,3.01639 front
set arrow from first 6.02054,78.7486 to first 7.50049,84.1185 nohead lw 0.8 lc rgb '#999999' back
set label 19 "strided" at 7.3174,76.2333 center offset char -4.58157,-2.97684 front
set arrow from first 7.12464,75.509 to first 5.85898,70.2022 nohead lw 0.8 lc rgb '#999999' back
set label 20 "synthesizer" at 0.5074,66 center offset char 0,0.963821 front
set arrow from graph 0, first 11.05 to graph 1, first 11.05 nohead dt 2 lc rgb '#888888'
set label 21 "chance (majority class)" at graph 0.01, first 11.05 offset 0,0.6 left textcolor rgb '#888888'
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
